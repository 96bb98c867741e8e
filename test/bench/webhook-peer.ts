import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

export interface PeerFigures {
  /** Deliveries of the run found in the database: the peer sends each once. */
  matched: number;
  delivered: number;
  failed: number;
  seconds: number;
  per_s: number;
}

/**
 * Runs the webhook peer (webhook-peer.process.ts) as its own process over the deliveries stored since `since`,
 * to the same receiver, and returns its figures.
 */
export function runWebhookPeer(env: NodeJS.ProcessEnv, since: number): Promise<PeerFigures> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', resolve(__dirname, 'webhook-peer.process.ts')], {
      env: { ...process.env, MONGODB_URI: env.MONGODB_URI, WEBHOOKS_DB_NAME: env.WEBHOOKS_DB_NAME, PEER_SINCE: String(since) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('exit', (code) => {
      const line = output.trim().split('\n').at(-1) ?? '';
      if (code === 0 && line) done(JSON.parse(line) as PeerFigures);
      else fail(new Error(`the webhook peer exited with ${String(code)}: ${output}`));
    });
  });
}
