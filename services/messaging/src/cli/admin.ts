import { exitWith, invocation, runCli } from '@crm/shared/cli';
import { messagingAdminProgram } from './admin-program';

// The operator CLI, in the image: `node dist/services/messaging/src/cli/admin.js <command>`; locally `npm run messaging-admin` adds the dev commands.
exitWith(runCli(messagingAdminProgram(invocation()), process.argv.slice(2)));
