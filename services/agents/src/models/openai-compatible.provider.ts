import { exchange, type OutboundAnswer } from '@crm/shared/outbound-http';
import { boundedHistory } from './bounded-history';
import { parseCompletion, systemPrompt } from './handoff-protocol';
import { cancelledBy, ModelError, redactSecret, type ModelErrorCode } from './model-error';
import type { ChatTurn, ModelProvider, ModelReply, ModelRequest } from './model-provider';
import { backoffDelay, isRetryableStatus, retryAfterMs, sleep, type BackoffOptions } from './retry-policy';
import { estimateUsage } from './usage-estimate';

export interface OpenAiCompatibleOptions {
  /** Up to the version segment, e.g. `https://api.openai.com/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  apiKey: string;
  /** Used when the agent names no model. */
  model: string;
  /** Per attempt: headers and body must arrive within it. */
  timeoutMs: number;
  /** Attempts after the first one, on 429, 5xx, timeouts and connection errors. */
  retries: number;
  backoff?: Partial<BackoffOptions>;
  /** The longest Retry-After we wait for; a longer one fails at once as `model_rate_limited`. */
  maxRetryAfterMs?: number;
  /** Injectable for tests that assert the waits without spending them. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 8_000, random: Math.random };
const DEFAULT_MAX_RETRY_AFTER_MS = 20_000;
const PROVIDER_MESSAGE_MAX_CHARS = 200;

/** One failed attempt, before it becomes the ModelError the caller sees. */
interface Failure {
  code: ModelErrorCode;
  message: string;
  status: number | null;
  retryable: boolean;
  retryAfterMs: number | null;
}

type Attempt = { reply: ModelReply } | { failure: Failure };

/**
 * Adapter for the OpenAI-compatible chat-completions API (OpenAI, Azure-style gateways, vLLM, Ollama, LiteLLM, …).
 * The key lives in a private field so that logging the provider object cannot print it, and every message built
 * from a provider's answer goes through `redactSecret`. Nothing here logs.
 */
export class OpenAiCompatibleProvider implements ModelProvider {
  readonly name = 'openai';
  readonly #apiKey: string;
  readonly #url: string;
  readonly #options: OpenAiCompatibleOptions;
  readonly #backoff: BackoffOptions;

  constructor(options: OpenAiCompatibleOptions) {
    this.#apiKey = options.apiKey;
    this.#url = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.#options = { ...options, apiKey: '' }; // the key lives in #apiKey only
    this.#backoff = { ...DEFAULT_BACKOFF, ...options.backoff };
  }

  async complete(request: ModelRequest): Promise<ModelReply> {
    const model = request.model.trim() || this.#options.model;
    // Bounded here too, not only by the runner: whatever a caller passes, the prompt stays bounded.
    const history = boundedHistory(request.history);
    const messages: ChatTurn[] = [{ role: 'system', content: systemPrompt(request.instructions, request.contactName) }, ...history];
    const body = JSON.stringify({ model, messages, temperature: request.temperature });
    const wait = this.#options.sleep ?? sleep;
    const maxRetryAfter = this.#options.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;

    for (let attempt = 1; ; attempt += 1) {
      if (request.signal?.aborted) throw cancelledBy(request.signal, attempt - 1);
      const outcome = await this.#attempt(body, model, { ...request, history });
      if ('reply' in outcome) return outcome.reply;
      const { failure } = outcome;
      if (request.signal?.aborted) throw cancelledBy(request.signal, attempt);
      const tooLong = failure.retryAfterMs !== null && failure.retryAfterMs > maxRetryAfter;
      if (!failure.retryable || attempt > this.#options.retries || tooLong) throw toError(failure, attempt);
      const delay = Math.max(backoffDelay(attempt, this.#backoff), failure.retryAfterMs ?? 0);
      try {
        await wait(delay, request.signal);
      } catch {
        throw request.signal?.aborted ? cancelledBy(request.signal, attempt) : toError(failure, attempt);
      }
    }
  }

  async #attempt(body: string, model: string, request: ModelRequest): Promise<Attempt> {
    const timeout = AbortSignal.timeout(this.#options.timeoutMs);
    const signal = request.signal ? AbortSignal.any([timeout, request.signal]) : timeout;
    let answer: OutboundAnswer;
    try {
      answer = await exchange(this.#url, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.#apiKey}`, 'content-type': 'application/json', accept: 'application/json' },
        body,
        signal,
      });
    } catch (error) {
      if (timeout.aborted && !request.signal?.aborted) {
        return fail('model_timeout', `The model did not answer within ${this.#options.timeoutMs} ms.`, null, true);
      }
      return fail('model_unavailable', `The model provider could not be reached (${networkCode(error)}).`, null, true);
    }
    const { status, headers, text } = answer;
    if (status >= 200 && status < 300) return this.#parse(text, status, model, request);
    const retryAfter = retryAfterMs(headers);
    const detail = this.#providerMessage(text);
    if (status === 429) {
      return fail('model_rate_limited', `The model provider is rate limiting (HTTP 429)${detail}.`, 429, true, retryAfter);
    }
    if (isRetryableStatus(status)) {
      return fail('model_unavailable', `The model provider failed (HTTP ${status})${detail}.`, status, true, retryAfter);
    }
    return fail('model_refused', `The model provider refused the request (HTTP ${status})${detail}.`, status, false);
  }

  #parse(text: string, status: number, model: string, request: ModelRequest): Attempt {
    const completion = readCompletion(text);
    if (completion?.finishReason === 'content_filter') {
      return fail('model_refused', "The model provider's content filter withheld the answer.", status, false);
    }
    if (completion === null || completion.content === null) {
      return fail('model_bad_response', 'The model provider answered without a chat completion message.', status, false);
    }
    const { content, handoff } = parseCompletion(completion.content);
    if (content.length === 0 && handoff === null)
      return fail('model_bad_response', 'The model answered with an empty message.', status, false);
    const usage = completion.usage ?? estimateUsage(request.instructions, request.history, completion.content);
    return { reply: { content, handoff, usage, model: completion.model ?? model } };
  }

  /** The provider's own explanation, short and without the key: ": <message>" or "". */
  #providerMessage(text: string): string {
    let message = text;
    try {
      const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
      const candidate = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message);
      if (typeof candidate === 'string') message = candidate;
    } catch {
      // Not JSON: an HTML error page or plain text; keep its beginning.
    }
    const clean = redactSecret(message.replace(/\s+/g, ' ').trim(), this.#apiKey)
      .slice(0, PROVIDER_MESSAGE_MAX_CHARS)
      .replace(/[.\s]+$/, '');
    return clean.length > 0 ? `: ${clean}` : '';
  }
}

function fail(
  code: ModelErrorCode,
  message: string,
  status: number | null,
  retryable: boolean,
  retryAfterMs: number | null = null,
): Attempt {
  return { failure: { code, message, status, retryable, retryAfterMs } };
}

function toError(failure: Failure, attempts: number): ModelError {
  const message = attempts > 1 ? `${failure.message.replace(/\.$/, '')} (after ${attempts} attempts).` : failure.message;
  return new ModelError(failure.code, message, failure.status, attempts);
}

/** ECONNREFUSED, ENOTFOUND, UND_ERR_SOCKET, …: the error's code, never the request, which holds the key. */
function networkCode(error: unknown): string {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : 'connection error';
}

interface Completion {
  /** Null when the choice has no text (a tool call, a filtered answer). */
  content: string | null;
  finishReason: string | null;
  model: string | null;
  usage: ModelReply['usage'] | null;
}

function readCompletion(text: string): Completion | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  const root = body as { choices?: unknown; model?: unknown; usage?: unknown } | null;
  const choice = Array.isArray(root?.choices)
    ? (root.choices[0] as { message?: { content?: unknown }; finish_reason?: unknown })
    : undefined;
  if (choice === undefined) return null;
  const content = choice.message?.content;
  return {
    content: typeof content === 'string' ? content : null,
    finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
    model: typeof root?.model === 'string' && root.model.length > 0 ? root.model : null,
    usage: usageOf(root?.usage),
  };
}

function usageOf(value: unknown): ModelReply['usage'] | null {
  const usage = value as { prompt_tokens?: unknown; completion_tokens?: unknown; total_tokens?: unknown } | null | undefined;
  const count = (n: unknown): number | null => (typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : null);
  const prompt = count(usage?.prompt_tokens);
  const completion = count(usage?.completion_tokens);
  if (prompt === null || completion === null || prompt + completion === 0) return null;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: count(usage?.total_tokens) ?? prompt + completion };
}
