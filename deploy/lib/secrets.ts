import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The keys every replica of a system must share: one gateway signs a list cursor that the next one must accept,
 * and any webhook replica opens a signing secret another sealed. A process that made up its own would refuse the
 * others' cursors (400 INVALID_CURSOR behind a round-robin balancer) or secrets.
 */
export interface SharedSecrets {
  /** HMAC key of list cursors (gateway). */
  CURSOR_SECRET: string;
  /** AES-256-GCM key of webhook signing secrets at rest (webhooks), base64 of 32 bytes, and its id. */
  WEBHOOK_SECRETS_KEY: string;
  WEBHOOK_SECRETS_KEY_ID: string;
  WEBHOOK_SECRETS_OLD_KEYS?: string;
  /** HMAC key of the service tokens every gRPC call carries (services/shared/src/grpc/service-identity.ts). */
  SERVICE_TOKEN_SECRET: string;
}

/**
 * The fixed key `npm start` sealed webhook secrets with before the keys were generated here (public: it was in the
 * repository). Given as an old key, the webhook replicas re-seal such rows under the generated key at start.
 */
const LEGACY_LOCAL_KEY = 'local:QH9xkXbQtg6pGR1gItle2QeN5GMH6xrwEmjhs2WcSQE=';

/** Fresh keys (a test run's system: its data lives as long as the run). */
export function generateSecrets(): SharedSecrets {
  return {
    CURSOR_SECRET: randomBytes(48).toString('base64url'),
    WEBHOOK_SECRETS_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_SECRETS_KEY_ID: `local-${randomBytes(3).toString('hex')}`,
    SERVICE_TOKEN_SECRET: randomBytes(48).toString('base64url'),
  };
}

/** Where `npm start` keeps the local platform's keys, relative to the repository's root (git-ignored). */
export const LOCAL_SECRETS_FILE = '.local/secrets.json';

/** The keys kept in `file`, as far as it holds them; none when there is no file yet. Never writes. */
export function readLocalSecrets(file: string): Partial<SharedSecrets> {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Partial<SharedSecrets>) : {};
}

/**
 * The local platform's keys, generated once and kept in `file` (under .local/, mode 0600), so every replica of every
 * `npm start` gets the same ones and data sealed yesterday opens today.
 */
export function localSecrets(file: string): SharedSecrets {
  const stored = readLocalSecrets(file);
  const secrets = { ...generateSecrets(), ...stored };
  if (Object.keys(secrets).some((key) => !stored[key as keyof SharedSecrets])) write(file, secrets);
  return { ...secrets, WEBHOOK_SECRETS_OLD_KEYS: LEGACY_LOCAL_KEY };
}

function write(file: string, secrets: SharedSecrets): void {
  mkdirSync(dirname(file), { recursive: true });
  // Written aside, then renamed: two starts at once never read half a file.
  writeFileSync(`${file}.tmp`, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}
