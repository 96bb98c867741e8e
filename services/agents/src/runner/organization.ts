import type { AgentsDeps } from '../domain/deps';

/** The organization's timezone (CRM GetMe without a key), cached: business hours are read on every message. */
export function organizationTimezone(deps: AgentsDeps, orgId: string): Promise<string> {
  return deps.timezones.get(orgId, async () => {
    const me = await deps.crm.accounts.getMe({ org_id: orgId, key_id: '' });
    return me.organization?.timezone || 'UTC';
  });
}
