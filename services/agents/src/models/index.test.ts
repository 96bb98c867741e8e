import { describe, expect, it } from 'vitest';
import { createModelProvider, LocalProvider, OpenAiCompatibleProvider } from './index';

describe('createModelProvider', () => {
  it('defaults to the local provider', () => {
    expect(createModelProvider({})).toBeInstanceOf(LocalProvider);
    expect(createModelProvider({ MODEL_PROVIDER: '', OPENAI_BASE_URL: 'not a url' }).name).toBe('local');
  });

  it('builds the OpenAI-compatible adapter, numbers given as numbers or strings', () => {
    const provider = createModelProvider({ MODEL_PROVIDER: 'OpenAI', OPENAI_API_KEY: 'sk-x', MODEL_TIMEOUT_MS: '5000', MODEL_RETRIES: 0 });
    expect(provider).toBeInstanceOf(OpenAiCompatibleProvider);
    expect(provider.name).toBe('openai');
  });

  it('lists every bad setting at once, never the key', () => {
    const build = () =>
      createModelProvider({
        MODEL_PROVIDER: 'openai',
        OPENAI_BASE_URL: 'ftp://example.test',
        MODEL_TIMEOUT_MS: '-1',
        MODEL_RETRIES: 'many',
      });
    expect(build).toThrow(
      'Invalid model provider configuration: MODEL_TIMEOUT_MS must be an integer from 1 to 600000; ' +
        'MODEL_RETRIES must be an integer from 0 to 10; OPENAI_BASE_URL must be an http(s) URL; ' +
        'OPENAI_API_KEY is required when MODEL_PROVIDER is openai.',
    );
    expect(() => createModelProvider({ MODEL_PROVIDER: 'gpt' })).toThrow('MODEL_PROVIDER must be local or openai');
    expect(() => createModelProvider({ MODEL_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-secret-value', MODEL_RETRIES: 99 })).toThrow(
      /^(?!.*sk-secret-value).*MODEL_RETRIES/,
    );
  });
});
