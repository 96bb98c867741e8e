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
