import { AppError } from '@crm/shared';
import { exchange, type OutboundAnswer } from '@crm/shared/outbound-http';
import type { IncomingHttpHeaders } from 'node:http';

export interface ProviderResponse {
  status: number;
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
}

/**
 * One HTTP call to a provider with a hard timeout. A timeout or a connection failure is "not confirmed": the
 * provider may or may not have taken the message, so the caller must not report it as sent.
 */
export async function providerCall(
  url: string,
  init: { method: 'GET' | 'POST'; token: string; body?: unknown; timeoutMs: number; idempotencyKey?: string },
): Promise<ProviderResponse> {
  let answer: OutboundAnswer;
  try {
    answer = await exchange(url, {
      method: init.method,
      headers: {
        authorization: `Bearer ${init.token}`,
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        // A retried send (after a timeout or a crash) carries the same key, so the provider accepts it once.
        ...(init.idempotencyKey ? { 'idempotency-key': init.idempotencyKey } : {}),
      },
      body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
      // One deadline for the whole exchange: connecting, the answer's headers and its body.
      signal: AbortSignal.timeout(init.timeoutMs),
    });
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    throw new AppError(
      'TEMPLATE_NOT_CONFIRMED',
      timedOut
        ? `The provider did not answer within ${init.timeoutMs} ms; the send is not confirmed.`
        : 'The provider could not be reached; the send is not confirmed.',
      {
        provider_code: timedOut ? 'timeout' : 'connection_error',
        provider_message: error instanceof Error ? error.message : String(error),
      },
    );
  }
  const { status, headers, text } = answer;
  let body: Record<string, unknown> = {};
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    body = { raw: text.slice(0, 200) };
  }
  if (status >= 500) {
    throw new AppError('TEMPLATE_NOT_CONFIRMED', `The provider answered ${status}; the send is not confirmed.`, {
      provider_code: `http_${status}`,
      provider_message: text.slice(0, 200),
    });
  }
  return { status, body, headers };
}

/** Seconds from a Retry-After header, or a fallback. */
export function retryAfterSeconds(headers: IncomingHttpHeaders, fallback: number): number {
  const value = Number(headers['retry-after']);
  return Number.isFinite(value) && value > 0 ? Math.ceil(value) : fallback;
}

export const rateLimited = (code: 'CHATAPP_INSTANCE_RATE_LIMIT' | 'SOCIALMSG_PAGE_RATE_LIMIT', seconds: number): AppError =>
  new AppError(
    code,
    `${code === 'CHATAPP_INSTANCE_RATE_LIMIT' ? 'The number' : 'The page'} is sending too fast; retry after ${seconds} s.`,
    { retry_after_seconds: seconds },
  );

export const asRecord = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
export const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
export const asString = (value: unknown): string | null =>
  typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;
