import { exitWith, runCli } from '@crm/shared/cli';
import { simProgram } from './sim-program';

exitWith(runCli(simProgram(), process.argv.slice(2)));
