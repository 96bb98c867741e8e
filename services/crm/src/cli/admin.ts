import { exitWith, invocation, runCli } from '@crm/shared/cli';
import { adminProgram } from './admin-program';

// The operator CLI, in the image: `node dist/services/crm/src/cli/admin.js <command>`; locally `npm run admin` adds the dev commands.
exitWith(runCli(adminProgram(invocation()), process.argv.slice(2)));
