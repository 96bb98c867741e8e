import { setFlagsFromString } from 'node:v8';
import { runService } from '@crm/shared/service';
import { messagingConfig } from './config';

// The old generation may grow 30 % past what the last full collection left alive, not the up to 4× V8 chooses by
// itself: during a 2,000-recipient broadcast ~60 MB stay alive, and V8's own choice let garbage fill ~200 MB of
// heap first (peak RSS 314-331 MB). At 30 %: at most 80 MB of heap and a peak RSS of 184 MB, at the same CPU per
// recipient (13.0 against 13.3 ms; bench:broadcasts, bench-results/broadcasts-notes.md). Read at every collection.
setFlagsFromString('--heap-growing-percent=30');

runService({ name: 'messaging', config: messagingConfig, load: async () => (await import('./service.js')).messagingService });
