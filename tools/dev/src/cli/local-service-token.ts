import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * A development CLI that calls a service over gRPC from a terminal needs the key of service tokens; unless the
 * environment sets SERVICE_TOKEN_SECRET, it takes the one `npm start` generated and keeps in .local/secrets.json
 * (npm runs scripts in the repository's root, where .local is).
 */
export function useLocalServiceToken(): void {
  if (process.env.SERVICE_TOKEN_SECRET) return;
  const file = resolve(process.cwd(), '.local/secrets.json');
  if (!existsSync(file)) return;
  const { SERVICE_TOKEN_SECRET } = JSON.parse(readFileSync(file, 'utf8')) as { SERVICE_TOKEN_SECRET?: string };
  if (SERVICE_TOKEN_SECRET) process.env.SERVICE_TOKEN_SECRET = SERVICE_TOKEN_SECRET;
}
