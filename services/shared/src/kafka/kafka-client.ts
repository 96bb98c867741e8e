import { readFileSync } from 'node:fs';
import { Kafka, logLevel, type KafkaConfig, type SASLOptions } from 'kafkajs';
import { z } from 'zod';
import { checkKafkaSettings, kafkaEnv, loadConfig, type KafkaSettings } from '../config';
import type { Logger } from '../logger';

export interface KafkaClientOptions {
  /** The client id the brokers see; KAFKA_CLIENT_ID overrides it. */
  clientId: string;
  /** Where kafkajs's warnings go; without one it says nothing (tests, tools). */
  logger?: Logger;
  retry?: KafkaConfig['retry'];
}

/**
 * The one way a process, a test or a tool makes a kafkajs client: the brokers, the SASL login and TLS of the
 * settings (config.ts kafkaEnv), checked first. The password never reaches a log: kafkajs does not print it.
 */
export function createKafka(settings: KafkaSettings, options: KafkaClientOptions): Kafka {
  checkKafkaSettings(settings);
  const { logger } = options;
  return new Kafka({
    clientId: settings.KAFKA_CLIENT_ID ?? options.clientId,
    brokers: settings.KAFKA_BROKERS.split(','),
    ...saslOf(settings),
    ...(settings.KAFKA_SSL ? { ssl: settings.KAFKA_SSL_CA_FILE ? { ca: [readFileSync(settings.KAFKA_SSL_CA_FILE, 'utf8')] } : true } : {}),
    retry: options.retry,
    logLevel: logger ? logLevel.WARN : logLevel.NOTHING,
    ...(logger
      ? {
          // At warn whatever kafkajs calls it: what it logs as an error (a rebalance, a lost connection) it retries
          // itself. Its context (the broker, the broker's error, the group) is kept; its own timestamp and name are
          // the log line's already.
          logCreator:
            () =>
            ({ namespace, log: { message, timestamp: _timestamp, logger: _name, ...context } }) => {
              if (!answeredByCaller(message)) logger.warn({ kafka: namespace, ...context }, message);
            },
        }
      : {}),
  });
}

/**
 * kafkajs logs a broker's error answer to CreateTopics before its admin client handles it, and the caller learns the
 * outcome anyway: `false` when another process created the topic first (services starting together race for it),
 * an exception otherwise. Logged, it is a warning at every start about nothing.
 */
const answeredByCaller = (message: string) => message.startsWith('Response CreateTopics');

/** The Kafka settings of an environment that is not a parsed configuration (a test system's env, a tool's process.env). */
export const kafkaSettings = (env: NodeJS.ProcessEnv): KafkaSettings => loadConfig(z.object(kafkaEnv), env);

/** A client from such an environment. */
export const kafkaFromEnv = (env: NodeJS.ProcessEnv, options: KafkaClientOptions): Kafka => createKafka(kafkaSettings(env), options);

function saslOf(settings: KafkaSettings): Pick<KafkaConfig, 'sasl'> {
  const { KAFKA_SASL_MECHANISM: mechanism, KAFKA_SASL_USERNAME: username = '', KAFKA_SASL_PASSWORD: password = '' } = settings;
  // kafkajs types each mechanism's options apart; the enum of kafkaEnv is exactly those three.
  return mechanism ? { sasl: { mechanism, username, password } as SASLOptions } : {};
}
