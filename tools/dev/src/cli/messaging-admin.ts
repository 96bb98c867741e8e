import { messagingAdminProgram, requireOrganization } from '@crm/messaging/src/cli/admin-program';
import { exitWith, invocation, runCli, type CliValues } from '@crm/shared/cli';
import { seedDemoMessaging } from '../demo/messaging-demo-seed';
import { restoreSimulator } from '../demo/sim-restore';
import { useLocalServiceToken } from './local-service-token';

const ORG = { name: 'org', value: '<org_id>', required: true, help: 'the organization (org_…)' } as const;
const target = (values: CliValues) => ({ orgId: String(values.org), simUrl: process.env.SIM_URL ?? 'http://127.0.0.1:8090' });

/** `npm run messaging-admin`: the messaging operator CLI (in the image) plus the provider simulator's demo commands. */
const program = messagingAdminProgram(
  invocation(),
  [
    {
      name: 'seed-demo',
      summary: "the demo organization's numbers, templates and conversations, made through the provider simulator",
      options: [ORG],
      example: 'seed-demo --org org_… --json',
      run: async (values, deps) => {
        await requireOrganization(deps, String(values.org));
        return seedDemoMessaging(deps, target(values));
      },
    },
    {
      name: 'sim-restore',
      summary: "tells a restarted provider simulator the organization's numbers and templates",
      options: [ORG],
      example: 'sim-restore --org org_…',
      run: async (values, deps) => {
        await requireOrganization(deps, String(values.org));
        return restoreSimulator(deps, target(values));
      },
    },
  ],
  ['SIM_URL            the provider simulator (seed-demo, sim-restore; default http://127.0.0.1:8090)'],
);

useLocalServiceToken();
exitWith(runCli(program, process.argv.slice(2)));
