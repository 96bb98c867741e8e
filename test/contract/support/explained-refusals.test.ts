import { describe, expect, it } from 'vitest';
import { isExplained } from './explained-refusals';
import type { Interaction } from './fuzz-report';

const refusal = (error: unknown): Interaction => ({
  operation: 'POST /v1/deals/{id}/win',
  phase: 'fuzzing',
  mode: 'positive',
  request: { method: 'POST', url: 'http://localhost/v1/deals/dl_1/win', headers: {} },
  status: 422,
  contentType: 'application/json',
  body: JSON.stringify({ error }),
  failedChecks: [],
});

describe('the exploration exception list', () => {
  it('excuses a refusal whose rule depends on state', () => {
    expect(isExplained(refusal({ code: 'INVALID_STATUS', details: { status: 'won' } }))).toBe(true);
  });

  it('excuses a validation error only when every field names a listed rule', () => {
    const future = { field: 'scheduledAt', issue: 'must be in the future' };
    const length = { field: 'name', issue: 'must be at most 200 characters' };
    expect(isExplained(refusal({ code: 'VALIDATION_ERROR', details: { fields: [future] } }))).toBe(true);
    expect(isExplained(refusal({ code: 'VALIDATION_ERROR', details: { fields: [future, length] } }))).toBe(false);
    expect(isExplained(refusal({ code: 'VALIDATION_ERROR', details: { fields: [] } }))).toBe(false);
  });

  it('excuses an id of another kind only where the stateful phase carried it', () => {
    const wrongKind = refusal({ code: 'INVALID_ID', details: { field: 'id' } });
    expect(isExplained({ ...wrongKind, phase: 'stateful' })).toBe(true);
    expect(isExplained({ ...wrongKind, phase: 'fuzzing' })).toBe(false);
  });

  it("excuses a replay's window against the clock and its kinds against the subscription's filter", () => {
    const since = { field: 'since', issue: 'must not be in the future' };
    const types = { field: 'types', issue: 'names kinds the subscription does not receive: deal.created' };
    expect(isExplained(refusal({ code: 'VALIDATION_ERROR', details: { fields: [since] } }))).toBe(true);
    expect(isExplained(refusal({ code: 'VALIDATION_ERROR', details: { fields: [types] } }))).toBe(true);
  });

  it('does not excuse other codes or answers without the envelope', () => {
    expect(isExplained(refusal({ code: 'INVALID_BODY' }))).toBe(false);
    expect(isExplained({ ...refusal({}), body: 'Bad Request' })).toBe(false);
  });
});
