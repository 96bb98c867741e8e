import { Writable } from 'node:stream';

/** One JSON log line as the services' logger (pino) writes it. */
export type LogLine = { level: number; msg: string } & Record<string, unknown>;

/**
 * A destination for a logger under test (`createLogger(name, level, stream)`, or Fastify's `logger.stream`) that keeps
 * every line it is given: `lines` parsed, `text()` as written.
 */
export function logLines(): { stream: Writable; lines: LogLine[]; text: () => string } {
  const written: string[] = [];
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const part = chunk.toString('utf8');
      written.push(part);
      for (const line of part.split('\n')) if (line.trim()) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return { stream, lines, text: () => written.join('') };
}
