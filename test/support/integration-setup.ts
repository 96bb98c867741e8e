import { kafkaFromEnv } from '@crm/shared';
import { MongoClient } from 'mongodb';
import type { TestProject } from 'vitest/node' with { 'resolution-mode': 'import' };
import { kafkaLogin } from '../../deploy/lib/local-stack';
import type { IntegrationEnv } from './integration';
import { stackForRun } from './run-stack';

declare module 'vitest' {
  export interface ProvidedContext {
    integration: IntegrationEnv;
  }
}

/**
 * The integration tier (`*.int.test.ts`): the real local stack (the database server and Kafka), started once per
 * run unless it runs already, and no service. Every database and topic a test makes is named after this run's
 * namespace, and dropped at the end.
 */
export default async function setup(project: TestProject) {
  const { stack, release } = await stackForRun();
  const namespace = `int${Date.now().toString(36)}`;
  const integration: IntegrationEnv = {
    MONGODB_URI: stack.MONGODB_URI,
    KAFKA_BROKERS: stack.KAFKA_BROKERS,
    ...kafkaLogin(stack, 'admin'),
    namespace,
  };
  project.provide('integration', integration);

  return async () => {
    const mongo = await new MongoClient(stack.MONGODB_URI).connect();
    try {
      const { databases } = await mongo.db('admin').admin().listDatabases({ nameOnly: true });
      for (const { name } of databases) if (name.startsWith(namespace)) await mongo.db(name).dropDatabase();
    } finally {
      await mongo.close();
    }
    const admin = kafkaFromEnv(integration, { clientId: 'integration-cleanup' }).admin();
    await admin.connect();
    const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(namespace));
    if (topics.length > 0) await admin.deleteTopics({ topics }).catch(() => undefined);
    await admin.disconnect();
    await release();
  };
}
