import { createLogger, EventBus, kafkaFromEnv, kafkaSettings } from '@crm/shared';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kafkaLogin, startLocalStack, stopLocalStack, type StackEnv } from '../../deploy/lib/local-stack';
import { freePorts } from '../../deploy/lib/ports';
import { testSystem } from '../support/system';

/**
 * Finding 3 of issue 22: Kafka took any connection, so any pod on the network could read every tenant's events or
 * publish forged ones. The local Kafka (deploy/local/kafka.sh) now takes SCRAM-SHA-512 logins only, one identity per
 * service plus `admin`. This file starts a Kafka of its own (whatever Kafka the run uses), so the refusals are proven
 * on every run; the services' own logins are proven by the whole suite when the run's Kafka is the local stack's.
 */
const SERVICES = ['crm', 'messaging', 'agents', 'webhooks'];
let stack: StackEnv;
let stackEnv: NodeJS.ProcessEnv;

/** Connects an admin client with `env`'s settings and lists the topics; rejects when the broker refuses it. */
async function listTopics(env: NodeJS.ProcessEnv): Promise<string[]> {
  const admin = kafkaFromEnv(env, { clientId: 'kafka-auth-test', retry: { retries: 0 } }).admin();
  try {
    await admin.connect();
    return await admin.listTopics();
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

beforeAll(async () => {
  const [kafkaPort, controllerPort] = await freePorts(2);
  // Our own Kafka only: MONGODB_URI set makes the stack script leave the database alone.
  stackEnv = {
    CRM_STACK_DIR: mkdtempSync(join(tmpdir(), 'kafka-auth-')),
    STACK_KAFKA_PORT: String(kafkaPort),
    STACK_KAFKA_CONTROLLER_PORT: String(controllerPort),
    MONGODB_URI: 'mongodb://127.0.0.1:1/unused',
    KAFKA_BROKERS: '',
  };
  stack = await startLocalStack({ env: stackEnv });
}, 180_000);

afterAll(async () => {
  if (stack) await stopLocalStack(stackEnv);
  rmSync(stackEnv.CRM_STACK_DIR ?? '', { recursive: true, force: true });
}, 60_000);

describe('Kafka authentication (SASL/SCRAM)', () => {
  it('refuses a client that does not log in, and lets the same client in with a login', async () => {
    const anonymous = { KAFKA_BROKERS: stack.KAFKA_BROKERS };
    await expect(listTopics(anonymous)).rejects.toThrow();
    await expect(listTopics({ ...anonymous, ...kafkaLogin(stack, 'admin') })).resolves.toEqual(expect.any(Array));
  });

  it('refuses a wrong password and an unknown user', async () => {
    const crm = kafkaLogin(stack, 'crm');
    await expect(
      listTopics({ KAFKA_BROKERS: stack.KAFKA_BROKERS, ...crm, KAFKA_SASL_PASSWORD: `${crm.KAFKA_SASL_PASSWORD}x` }),
    ).rejects.toThrow(/SASL SCRAM SHA512 authentication failed/);
    await expect(listTopics({ KAFKA_BROKERS: stack.KAFKA_BROKERS, ...crm, KAFKA_SASL_USERNAME: 'intruder' })).rejects.toThrow(
      /SASL SCRAM SHA512 authentication failed/,
    );
  });

  it('gives every service a login of its own: one publishes with its, another reads with its', async () => {
    const passwords = SERVICES.map((service) => kafkaLogin(stack, service).KAFKA_SASL_PASSWORD);
    expect(new Set(passwords).size).toBe(SERVICES.length);
    for (const service of SERVICES) {
      await expect(listTopics({ KAFKA_BROKERS: stack.KAFKA_BROKERS, ...kafkaLogin(stack, service) }), service).resolves.toEqual(
        expect.any(Array),
      );
    }

    const topic = 'kafka-auth.events';
    const crm = kafkaSettings({ KAFKA_BROKERS: stack.KAFKA_BROKERS, ...kafkaLogin(stack, 'crm') });
    const bus = new EventBus({ kafka: crm, clientId: 'crm', logger: createLogger('kafka-auth-test', 'silent') });
    const consumer = kafkaFromEnv(
      { KAFKA_BROKERS: stack.KAFKA_BROKERS, ...kafkaLogin(stack, 'webhooks') },
      { clientId: 'webhooks' },
    ).consumer({
      groupId: 'kafka-auth-readers',
      maxWaitTimeInMs: 100,
    });
    try {
      await bus.ensureTopic(topic, 1);
      await bus.publish(topic, [{ key: 'k', value: 'published by crm' }]);
      await consumer.connect();
      await consumer.subscribe({ topic, fromBeginning: true });
      const received = new Promise<string>((resolve) => {
        void consumer.run({ eachMessage: async ({ message }) => resolve(message.value?.toString('utf8') ?? '') });
      });
      await expect(received).resolves.toBe('published by crm');
    } finally {
      await consumer.disconnect();
      await bus.close();
    }
  }, 60_000);

  it('keeps the passwords out of the broker logs and the users file private', () => {
    const dir = join(stackEnv.CRM_STACK_DIR ?? '', 'kafka');
    expect(statSync(join(dir, 'scram-users')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'server.properties')).mode & 0o777).toBe(0o600);
    const logs = readdirSync(join(dir, 'logs')).map((file) => readFileSync(join(dir, 'logs', file), 'utf8'));
    expect(logs.join('\n')).toContain('Failed authentication');
    for (const password of Object.values(stack.kafkaLogins?.passwords ?? {})) expect(logs.join('\n')).not.toContain(password);
  });
});

describe("the run's own Kafka", () => {
  // When the run started the local stack (npm test on a clean machine), every service of the system logged in as
  // itself for the whole suite; a Kafka the run was pointed at (KAFKA_BROKERS) may take no logins.
  it.runIf(Boolean(testSystem().env.KAFKA_SASL_MECHANISM))('refuses clients that do not log in', async () => {
    await expect(listTopics({ KAFKA_BROKERS: testSystem().env.KAFKA_BROKERS })).rejects.toThrow();
    await expect(listTopics(testSystem().env)).resolves.toContain(testSystem().env.EVENTS_TOPIC);
  });
});
