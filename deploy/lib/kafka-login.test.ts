import { describe, expect, it } from 'vitest';
import { kafkaLogin, type StackEnv } from './local-stack';
import { generateSecrets } from './secrets';
import { operatorEnv, serviceKafkaLogin, systemEnv } from './system-plan';

const PASSWORDS = {
  admin: 'a'.repeat(48),
  crm: 'c'.repeat(48),
  messaging: 'm'.repeat(48),
  agents: 'g'.repeat(48),
  webhooks: 'w'.repeat(48),
};
const STACK: StackEnv = {
  MONGODB_URI: 'mongodb://127.0.0.1:27027/?directConnection=true',
  KAFKA_BROKERS: '127.0.0.1:19092',
  kafkaLogins: { mechanism: 'SCRAM-SHA-512', passwords: PASSWORDS },
};
const PORTS = {
  gatewayPort: 8080,
  crmPorts: [50051],
  webhooksPorts: [50054],
  messagingPorts: [{ grpc: 50052, http: 8082 }],
  agentsPorts: [50053],
  simulatorPort: 8090,
};

describe("a local system's Kafka logins", () => {
  it('give each service that talks to Kafka its own identity, and the others none', () => {
    for (const service of ['crm', 'messaging', 'agents', 'webhooks'] as const)
      expect(serviceKafkaLogin(STACK, service)).toEqual({
        KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
        KAFKA_SASL_USERNAME: service,
        KAFKA_SASL_PASSWORD: PASSWORDS[service],
      });
    expect(serviceKafkaLogin(STACK, 'gateway')).toEqual({});
    expect(serviceKafkaLogin(STACK, 'simulator')).toEqual({});
  });

  it('keep every password out of the shared environment; the tests and tools around the system log in as admin', () => {
    const options = { ...PORTS, stack: STACK, secrets: generateSecrets() };
    const shared = JSON.stringify(systemEnv(options));
    for (const password of Object.values(PASSWORDS)) expect(shared).not.toContain(password);
    expect(operatorEnv(options)).toMatchObject({ KAFKA_SASL_USERNAME: 'admin', KAFKA_SASL_PASSWORD: PASSWORDS.admin });
  });

  it('are empty when the Kafka takes no logins, and refuse an identity the stack does not have', () => {
    expect(kafkaLogin({ MONGODB_URI: STACK.MONGODB_URI, KAFKA_BROKERS: STACK.KAFKA_BROKERS }, 'crm')).toEqual({});
    expect(() => kafkaLogin({ ...STACK, kafkaLogins: { mechanism: 'SCRAM-SHA-512', passwords: {} } }, 'crm')).toThrow(/no user crm/);
  });
});
