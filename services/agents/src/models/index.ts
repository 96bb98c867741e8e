import { LocalProvider } from './local.provider';
import type { ModelProvider } from './model-provider';
import { OpenAiCompatibleProvider } from './openai-compatible.provider';

export { boundedHistory, DEFAULT_HISTORY_BOUNDS, type HistoryBounds } from './bounded-history';
export { ModelError, type ModelErrorCode } from './model-error';
export type { ChatTurn, ModelProvider, ModelReply, ModelRequest } from './model-provider';
export { LOCAL_MODEL, LocalProvider } from './local.provider';
export { OpenAiCompatibleProvider, type OpenAiCompatibleOptions } from './openai-compatible.provider';

/** The process settings of the model provider, by their environment names; empty strings count as unset. */
export interface ModelProviderConfig {
  /** `local` (default) or `openai`. */
  MODEL_PROVIDER?: string;
  OPENAI_BASE_URL?: string;
  /** Required when MODEL_PROVIDER is `openai`. */
  OPENAI_API_KEY?: string;
  /** The model used when an agent's aiConfig names none. */
  OPENAI_MODEL?: string;
  /** Per attempt. */
  MODEL_TIMEOUT_MS?: number | string;
  /** Attempts after the first one. */
  MODEL_RETRIES?: number | string;
}

export const MODEL_DEFAULTS = Object.freeze({
  MODEL_PROVIDER: 'local',
  OPENAI_BASE_URL: 'https://api.openai.com/v1',
  OPENAI_MODEL: 'gpt-4o-mini',
  MODEL_TIMEOUT_MS: 15_000,
  MODEL_RETRIES: 2,
});

const set = (value: string | number | undefined): boolean => value !== undefined && String(value).trim() !== '';

function integerIn(
  name: string,
  value: number | string | undefined,
  fallback: number,
  min: number,
  max: number,
  problems: string[],
): number {
  if (!set(value)) return fallback;
  const n = Number(value);
  if (Number.isInteger(n) && n >= min && n <= max) return n;
  problems.push(`${name} must be an integer from ${min} to ${max}`);
  return fallback;
}

/** Builds the provider the config names; throws with every bad setting listed (never a setting's value for the key). */
export function createModelProvider(config: ModelProviderConfig): ModelProvider {
  const problems: string[] = [];
  const kind = set(config.MODEL_PROVIDER) ? String(config.MODEL_PROVIDER).trim().toLowerCase() : MODEL_DEFAULTS.MODEL_PROVIDER;
  const timeoutMs = integerIn('MODEL_TIMEOUT_MS', config.MODEL_TIMEOUT_MS, MODEL_DEFAULTS.MODEL_TIMEOUT_MS, 1, 600_000, problems);
  const retries = integerIn('MODEL_RETRIES', config.MODEL_RETRIES, MODEL_DEFAULTS.MODEL_RETRIES, 0, 10, problems);
  const baseUrl = set(config.OPENAI_BASE_URL) ? String(config.OPENAI_BASE_URL).trim() : MODEL_DEFAULTS.OPENAI_BASE_URL;
  if (kind === 'openai' && (!/^https?:\/\/[^/\s]+/i.test(baseUrl) || !URL.canParse(baseUrl)))
    problems.push('OPENAI_BASE_URL must be an http(s) URL');
  if (kind !== 'local' && kind !== 'openai') problems.push('MODEL_PROVIDER must be local or openai');
  if (kind === 'openai' && !set(config.OPENAI_API_KEY)) problems.push('OPENAI_API_KEY is required when MODEL_PROVIDER is openai');
  if (problems.length > 0) throw new Error(`Invalid model provider configuration: ${problems.join('; ')}.`);

  if (kind === 'local') return new LocalProvider();
  const model = set(config.OPENAI_MODEL) ? String(config.OPENAI_MODEL).trim() : MODEL_DEFAULTS.OPENAI_MODEL;
  return new OpenAiCompatibleProvider({ baseUrl, apiKey: String(config.OPENAI_API_KEY).trim(), model, timeoutMs, retries });
}
