import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * One bash process that runs commands one after another, as a person types them in one terminal: variables and
 * functions a command defines stay for the next. Each command's output is kept apart.
 */
export class ShellSession {
  private readonly bash: ChildProcessWithoutNullStreams;
  private readonly dir = mkdtempSync(join(tmpdir(), 'crm-docs-shell-'));
  private output = '';

  constructor(cwd: string, env: NodeJS.ProcessEnv) {
    this.bash = spawn('bash', ['--noprofile', '--norc'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.bash.stdout.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
  }

  async run(command: string, timeoutMs = 180_000): Promise<CommandResult> {
    const id = randomUUID();
    const out = join(this.dir, `${id}.out`);
    const err = join(this.dir, `${id}.err`);
    // A group, not a subshell: an assignment or a function it makes stays in this shell.
    this.bash.stdin.write(`{\n${command}\n} > '${out}' 2> '${err}' < /dev/null; echo "__done ${id} $?"\n`);
    const marker = new RegExp(`__done ${id} (\\d+)`);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = marker.exec(this.output);
      if (match) return { code: Number(match[1]), stdout: readFileSync(out, 'utf8'), stderr: readFileSync(err, 'utf8') };
      if (Date.now() > deadline) throw new Error(`no answer within ${timeoutMs} ms to: ${command}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  close(): void {
    this.bash.stdin.end();
    this.bash.kill('SIGTERM');
  }
}
