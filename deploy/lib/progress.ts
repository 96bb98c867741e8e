/**
 * What `npm start` is doing, step by step. On a terminal: one compact live line per step (a spinner, the step, its
 * latest detail, the time spent), rewritten in place and left as a summary when the step ends. Anywhere else (a
 * file, a CI log): plain lines, each detail as it comes and a "still …" line when a step is quiet for a while, so a
 * log never goes silent for minutes.
 */
export interface Progress {
  /** Starts a step (ending the previous one); `label` names it in the durations (default: the title). */
  step(title: string, label?: string): void;
  /** The current step's latest news (`120/211 crates compiled, about 3m left`). */
  detail(text: string): void;
  /** Ends the current step; its duration is kept for the total. */
  done(summary?: string): void;
  /** Seconds per ended step, in order. */
  readonly durations: ReadonlyArray<{ label: string; seconds: number }>;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** `7m05s`, `42.1 s`. */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes}m${String(Math.round(seconds % 60)).padStart(2, '0')}s`;
}

export function createProgress(
  stream: NodeJS.WriteStream = process.stdout,
  options: { live?: boolean; quietMs?: number; now?: () => number } = {},
): Progress {
  const live = options.live ?? (stream.isTTY === true && process.env.TERM !== 'dumb' && !process.env.CI);
  const now = options.now ?? Date.now;
  const quietMs = options.quietMs ?? 15_000;
  const durations: Array<{ label: string; seconds: number }> = [];
  let current: { title: string; label: string; startedAt: number; detail: string; lastLineAt: number } | undefined;
  let frame = 0;
  let timer: NodeJS.Timeout | undefined;

  const elapsed = () => (current ? (now() - current.startedAt) / 1000 : 0);
  const width = () => Math.max(40, (stream.columns ?? 100) - 1);
  const render = () => {
    if (!current) return;
    const text = `${SPINNER[frame++ % SPINNER.length]} ${current.title}${current.detail ? ` — ${current.detail}` : ''} (${formatDuration(elapsed())})`;
    stream.write(`\r\x1b[2K${text.slice(0, width())}`);
  };
  const line = (text: string) => {
    stream.write(`${text}\n`);
    if (current) current.lastLineAt = now();
  };
  const heartbeat = () => {
    if (!current || now() - current.lastLineAt < quietMs) return;
    line(`    … still ${current.title.toLowerCase()} (${formatDuration(elapsed())})`);
  };

  const progress: Progress = {
    durations,
    step(title, label = title) {
      if (current) progress.done();
      current = { title, label, startedAt: now(), detail: '', lastLineAt: now() };
      if (live) render();
      else line(`==> ${title}`);
      timer = setInterval(live ? render : heartbeat, live ? 120 : 1_000);
      timer.unref();
    },
    detail(text) {
      if (!current) return line(text);
      current.detail = text;
      if (live) render();
      else line(`    ${text}`);
    },
    done(summary) {
      if (!current) return;
      clearInterval(timer);
      const seconds = elapsed();
      durations.push({ label: current.label, seconds });
      const text = `${current.title}${summary ? `: ${summary}` : ''} (${formatDuration(seconds)})`;
      if (live) stream.write(`\r\x1b[2K✓ ${text}\n`);
      else line(`    done: ${text}`);
      current = undefined;
    },
  };
  return progress;
}
