import { describe, expect, it } from 'vitest';
import { checkModel } from './references';

describe('agent model allow-list', () => {
  it('accepts the default model and the allowed names, and refuses any other with the allowed list', () => {
    const allowed = new Set(['gpt-4o-mini', 'local-rules-v1']);
    expect(() => checkModel(allowed, null)).not.toThrow();
    expect(() => checkModel(allowed, undefined)).not.toThrow();
    expect(() => checkModel(allowed, 'gpt-4o-mini')).not.toThrow();
    expect(() => checkModel(allowed, 'o1-pro')).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_ERROR',
        details: { fields: [{ field: 'aiConfig.model', issue: 'is not an allowed model', allowed: ['gpt-4o-mini', 'local-rules-v1'] }] },
      }),
    );
  });

  it('allows any name when the deployment sets no list', () => {
    expect(() => checkModel(new Set(), 'anything')).not.toThrow();
  });
});
