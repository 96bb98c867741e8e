// Preload (NODE_OPTIONS=--import) that applies $BENCH_V8_FLAGS with v8.setFlagsFromString: for the V8 settings node
// refuses in NODE_OPTIONS (e.g. --heap-growing-percent, read at every collection), so an A/B needs no change to how
// the processes start. Only for measurements: a setting that is kept belongs on node's command line.
import process from 'node:process';
import { setFlagsFromString } from 'node:v8';

if (process.env.BENCH_V8_FLAGS) setFlagsFromString(process.env.BENCH_V8_FLAGS);
