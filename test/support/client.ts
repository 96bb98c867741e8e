import { createCrmClient, type CrmClient } from '@crm/client';
import { testSystem } from './system';

/**
 * The typed client of @crm/client for the running gateway, bound to one API key: paths, parameters, bodies and
 * answers are checked against the served OpenAPI document when `npm run build` type-checks the tests, so a server
 * that drifts from its document breaks the build. Deliberately invalid requests use `rawApi` (./api).
 */
export function client(key: string): CrmClient {
  return createCrmClient({ baseUrl: testSystem().baseUrl, apiKey: key });
}
