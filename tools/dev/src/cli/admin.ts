import { adminProgram } from '@crm/crm/src/cli/admin-program';
import { exitWith, invocation, optional, runCli } from '@crm/shared/cli';
import { seedDemo } from '../demo/crm-demo-seed';

/** `npm run admin`: the CRM's operator CLI (in the image) plus seed-demo, which only a development machine needs. */
const program = adminProgram(invocation(), [
  {
    name: 'seed-demo',
    summary: 'creates a demo organization: members, custom fields, a default funnel and an all-scopes key (printed once)',
    options: [{ name: 'name', value: '<name>', help: 'default "Demo organization"' }],
    example: 'seed-demo --json',
    run: (values, deps) => seedDemo(deps, { name: optional(values.name) ?? 'Demo organization' }),
  },
]);

exitWith(runCli(program, process.argv.slice(2)));
