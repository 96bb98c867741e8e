import { resolve } from 'node:path';
import { LOCAL_SECRETS_FILE, readLocalSecrets } from '../../../../deploy/lib/secrets';

/**
 * A development CLI that calls a service over gRPC from a terminal needs the key of service tokens; unless the
 * environment sets SERVICE_TOKEN_SECRET, it takes the one `npm start` generated and keeps (npm runs scripts in the
 * repository's root, where .local is).
 */
export function useLocalServiceToken(): void {
  if (process.env.SERVICE_TOKEN_SECRET) return;
  const { SERVICE_TOKEN_SECRET } = readLocalSecrets(resolve(process.cwd(), LOCAL_SECRETS_FILE));
  if (SERVICE_TOKEN_SECRET) process.env.SERVICE_TOKEN_SECRET = SERVICE_TOKEN_SECRET;
}
