// The list lives in @crm/shared, so the gateway's routes are typed by the same scopes the service grants.
export { SCOPES, isScope, type Scope } from '@crm/shared';
