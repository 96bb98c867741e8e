/**
 * Writes of a "latest date" field per key (e.g. a broadcast's `recipients_changed_at`, set with `$max`), one at a
 * time per key: the dates asked for while a write is running go in one next write, with the latest of them. Each
 * caller's promise settles once a write carrying its date (or a later one) is done, so a caller that awaits it
 * knows the date is stored, as with a write of its own; status callbacks of a broadcast arriving dozens a second
 * then cost a few writes instead of one each.
 */
export function latestDateWrites(write: (key: string, at: Date) => Promise<void>): (key: string, at: Date) => Promise<void> {
  const running = new Map<string, Promise<void>>();
  const queued = new Map<string, { at: Date; done: Promise<void> }>();
  return (key, at) => {
    const waiting = queued.get(key);
    if (waiting) {
      if (at > waiting.at) waiting.at = at;
      return waiting.done;
    }
    const previous = running.get(key) ?? Promise.resolve();
    const entry: { at: Date; done: Promise<void> } = {
      at,
      done: previous
        .catch(() => undefined)
        .then(() => {
          queued.delete(key);
          const run = write(key, entry.at);
          running.set(key, run);
          return run.finally(() => {
            if (running.get(key) === run) running.delete(key);
          });
        }),
    };
    queued.set(key, entry);
    return entry.done;
  };
}
