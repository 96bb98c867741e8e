import { AppError } from './errors/app-error';

/**
 * The 27 scopes of the API: the catalogue's 24 (§1), read:events (GET /v1/events) and read:api_keys / write:api_keys
 * (GET /v1/api-keys, DELETE /v1/api-keys/{id}). One list for the CRM service (which grants them to keys) and the
 * gateway (whose routes each require one). `write:x` does not imply `read:x`.
 */
export const SCOPES = [
  'read:contacts',
  'write:contacts',
  'read:companies',
  'write:companies',
  'read:deals',
  'write:deals',
  'read:funnels',
  'write:funnels',
  'read:tasks',
  'write:tasks',
  'read:members',
  'read:tags',
  'read:custom_fields',
  'read:conversations',
  'write:conversations',
  'read:messages',
  'write:messages',
  'read:chatapp_instances',
  'read:broadcasts',
  'write:broadcasts',
  'read:ai_agents',
  'write:ai_agents',
  'read:webhooks',
  'write:webhooks',
  'read:events',
  'read:api_keys',
  'write:api_keys',
] as const;

export type Scope = (typeof SCOPES)[number];

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);

/**
 * 403 INSUFFICIENT_SCOPES naming the scopes of `required` that `held` lacks (the error envelope lists the required,
 * missing and held ones), or undefined when it lacks none. `needs` says what asks for them.
 */
export function insufficientScopes(
  required: readonly string[],
  held: readonly string[],
  needs = 'This request needs',
): AppError | undefined {
  const missing = required.filter((scope) => !held.includes(scope));
  if (missing.length === 0) return undefined;
  return new AppError(
    'INSUFFICIENT_SCOPES',
    `${needs} the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, which the API key lacks.`,
    { required_scopes: [...required], missing_scopes: missing, your_scopes: [...held] },
  );
}
