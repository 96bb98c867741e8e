import { describe, expect, it } from 'vitest';
import { createProgress, formatDuration } from './progress';

/** A stream that keeps what is written, as a terminal (isTTY) or a file would get it. */
function sink(isTTY: boolean) {
  const chunks: string[] = [];
  const stream = { isTTY, columns: 80, write: (chunk: string) => chunks.push(chunk) > 0 } as unknown as NodeJS.WriteStream;
  return { stream, text: () => chunks.join('') };
}

describe('progress', () => {
  it('writes plain lines for a log: each step, each detail, a "still" line when quiet, and the step with its time', () => {
    let clock = 0;
    const out = sink(false);
    const progress = createProgress(out.stream, { now: () => clock, quietMs: 15_000 });
    progress.step('Building SecantusDB');
    progress.detail('12/211 crates compiled, about 6m00s left');
    clock = 90_500;
    progress.done();
    progress.step('Starting the services', 'services');
    clock = 100_000;
    progress.done('9 processes');
    expect(out.text()).toBe(
      [
        '==> Building SecantusDB',
        '    12/211 crates compiled, about 6m00s left',
        '    done: Building SecantusDB (1m31s)',
        '==> Starting the services',
        '    done: Starting the services: 9 processes (9.5 s)',
        '',
      ].join('\n'),
    );
    expect(progress.durations).toEqual([
      { label: 'Building SecantusDB', seconds: 90.5 },
      { label: 'services', seconds: 9.5 },
    ]);
    expect(out.text()).not.toContain('\r');
  });

  it('keeps one live line on a terminal, rewritten in place, and leaves a summary line per step', () => {
    let clock = 0;
    const out = sink(true);
    const progress = createProgress(out.stream, { now: () => clock, live: true });
    progress.step('Installing Kafka');
    progress.detail('resolving jars');
    clock = 2_000;
    progress.done();
    const text = out.text();
    expect(text).toContain('\r\x1b[2K⠙ Installing Kafka — resolving jars (0.0 s)');
    expect(text.endsWith('\r\x1b[2K✓ Installing Kafka (2.0 s)\n')).toBe(true);
    expect(text.split('\n')).toHaveLength(2);
  });

  it('formats durations', () => {
    expect(formatDuration(4.23)).toBe('4.2 s');
    expect(formatDuration(425)).toBe('7m05s');
  });
});
