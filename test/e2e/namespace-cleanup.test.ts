import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalStack, type StackEnv } from '../../deploy/lib/local-stack';
import { generateSecrets } from '../../deploy/lib/secrets';
import { operatorEnv } from '../../deploy/lib/system';
import { dropNamespace } from '../support/namespace';

/** Test and benchmark runs share the local servers: what one namespaced system made must go with it. */
describe('dropping a namespaced system', () => {
  let stack: StackEnv;
  let mongo: MongoClient;
  const namespace = `cleanup${Date.now().toString(36)}`;
  const bystander = `bystander_${namespace}`;

  beforeAll(async () => {
    stack = await startLocalStack();
    mongo = await new MongoClient(stack.MONGODB_URI).connect();
  }, 120_000);
  afterAll(async () => {
    await mongo.db(bystander).dropDatabase();
    await mongo.close();
  });

  it("drops every service's database of the namespace, the agents' included, and no other", async () => {
    const env = operatorEnv({
      stack,
      namespace,
      secrets: generateSecrets(),
      gatewayPort: 1,
      crmPorts: [2],
      webhooksPorts: [3],
      messagingPorts: [{ grpc: 4, http: 5 }],
      agentsPorts: [6],
      simulatorPort: 7,
    });
    const databases = Object.entries(env)
      .filter(([key]) => key.endsWith('_DB_NAME'))
      .map(([, name]) => name ?? '');
    expect(databases).toContain(`agents_${namespace}`);
    for (const name of [...databases, bystander]) await mongo.db(name).collection('probe').insertOne({ at: new Date() });

    await dropNamespace(env);

    const left = (await mongo.db().admin().listDatabases()).databases.map((database) => database.name);
    expect(left.filter((name) => databases.includes(name))).toEqual([]);
    expect(left).toContain(bystander);
  });
});
