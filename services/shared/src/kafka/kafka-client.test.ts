import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { logLines } from '../../../../test/support/log-lines';
import { checkKafkaSettings } from '../config';
import { createLogger } from '../logger';
import { kafkaFromEnv, kafkaSettings } from './kafka-client';

const BROKERS = { KAFKA_BROKERS: 'kafka-0:9092,kafka-1:9092' };
const LOGIN = { KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512', KAFKA_SASL_USERNAME: 'crm', KAFKA_SASL_PASSWORD: 'p'.repeat(40) };

describe('Kafka settings', () => {
  it('read the mechanism in any case, TLS as a boolean, and treat empty variables as unset', () => {
    expect(kafkaSettings({ ...BROKERS, ...LOGIN, KAFKA_SSL: 'true', KAFKA_CLIENT_ID: '' })).toEqual({
      ...BROKERS,
      KAFKA_SASL_MECHANISM: 'scram-sha-512',
      KAFKA_SASL_USERNAME: 'crm',
      KAFKA_SASL_PASSWORD: LOGIN.KAFKA_SASL_PASSWORD,
      KAFKA_SSL: true,
    });
    expect(kafkaSettings({ ...BROKERS, KAFKA_SASL_MECHANISM: '', KAFKA_SASL_USERNAME: '' })).toEqual({ ...BROKERS, KAFKA_SSL: false });
  });

  it('refuse an unknown mechanism', () => {
    expect(() => kafkaSettings({ ...BROKERS, ...LOGIN, KAFKA_SASL_MECHANISM: 'gssapi' })).toThrow(
      /^Invalid configuration: KAFKA_SASL_MECHANISM: /,
    );
  });

  it('refuse a mechanism without its login, and a login without a mechanism, naming every variable', () => {
    expect(() => checkKafkaSettings(kafkaSettings({ ...BROKERS, KAFKA_SASL_MECHANISM: 'scram-sha-256' }))).toThrow(
      'Invalid configuration: KAFKA_SASL_USERNAME: is required with KAFKA_SASL_MECHANISM; KAFKA_SASL_PASSWORD: is required with KAFKA_SASL_MECHANISM',
    );
    expect(() => checkKafkaSettings(kafkaSettings({ ...BROKERS, KAFKA_SASL_USERNAME: 'crm', KAFKA_SASL_PASSWORD: 'x' }))).toThrow(
      /^Invalid configuration: KAFKA_SASL_MECHANISM: is required with KAFKA_SASL_USERNAME/,
    );
  });

  it('refuse a plain-text password without TLS, and a CA file without TLS', () => {
    expect(() => checkKafkaSettings(kafkaSettings({ ...BROKERS, ...LOGIN, KAFKA_SASL_MECHANISM: 'plain' }))).toThrow(
      /KAFKA_SSL: must be true with KAFKA_SASL_MECHANISM=plain/,
    );
    expect(() => checkKafkaSettings(kafkaSettings({ ...BROKERS, ...LOGIN, KAFKA_SASL_MECHANISM: 'plain', KAFKA_SSL: '1' }))).not.toThrow();
    expect(() => checkKafkaSettings(kafkaSettings({ ...BROKERS, KAFKA_SSL_CA_FILE: '/etc/kafka/ca.crt' }))).toThrow(
      /KAFKA_SSL: must be true with KAFKA_SSL_CA_FILE/,
    );
  });

  it('accept no login at all (a broker that takes connections without one)', () => {
    expect(() => checkKafkaSettings(kafkaSettings(BROKERS))).not.toThrow();
  });
});

describe('Kafka client logs', () => {
  it("go to the service's logger at warn with kafkajs's context (which broker, what failed)", async () => {
    const { stream, lines } = logLines();
    // A port nothing listens on: the connection is refused at once.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const kafka = kafkaFromEnv(
      { KAFKA_BROKERS: `127.0.0.1:${port}` },
      { clientId: 'log-test', logger: createLogger('log-test', 'info', stream), retry: { retries: 0 } },
    );
    const admin = kafka.admin();
    await expect(admin.connect()).rejects.toThrow();
    const refused = lines.find((line) => line.msg.includes('ECONNREFUSED'));
    expect(refused).toMatchObject({ level: 40, kafka: expect.any(String), broker: `127.0.0.1:${port}`, clientId: 'log-test' });
    expect(refused).not.toHaveProperty('timestamp');
  });
});
