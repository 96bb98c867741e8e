/**
 * The 25 scopes of the API: the catalogue's 24 (§1) and read:events (GET /v1/events, issue 26). One list for the
 * CRM service (which grants them to keys) and the gateway (whose routes each require one). `write:x` does not
 * imply `read:x`.
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
] as const;

export type Scope = (typeof SCOPES)[number];

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);
