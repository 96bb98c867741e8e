import { kafkaFromEnv } from '@crm/shared';
import { MongoClient } from 'mongodb';

/**
 * Drops what one namespaced system made on the shared local servers — its databases and its events topic — so
 * repeated test and benchmark runs do not grow them. `env` is the system's environment (systemEnv).
 */
export async function dropNamespace(env: NodeJS.ProcessEnv): Promise<void> {
  const mongo = await new MongoClient(env.MONGODB_URI ?? '').connect();
  try {
    // Named one by one (env may carry the caller's own variables); the agents' was missing, and each run left it.
    for (const name of [env.CRM_DB_NAME, env.GATEWAY_DB_NAME, env.WEBHOOKS_DB_NAME, env.MESSAGING_DB_NAME, env.AGENTS_DB_NAME])
      if (name) await mongo.db(name).dropDatabase();
  } finally {
    await mongo.close();
  }
  const admin = kafkaFromEnv(env, { clientId: 'test-cleanup' }).admin();
  await admin.connect();
  await admin.deleteTopics({ topics: [env.EVENTS_TOPIC ?? ''] }).catch(() => undefined);
  await admin.disconnect();
}
