import type { KafkaMessage } from 'kafkajs';
import type { OutgoingMessage } from './event-bus';

export interface DeadLetterInfo {
  groupId: string;
  topic: string;
  partition: number;
  reason: 'invalid' | 'failed';
  /** The validation or handler error. */
  detail: string;
}

/** Longest error text kept in a header. */
const MAX_DETAIL = 2_000;

/**
 * The message as it was (key, value, headers) plus where it came from and why it was given up, so an operator can
 * read it, fix the cause and publish the value again to the topic (consumers deduplicate by event id).
 */
export function deadLetterMessage(message: KafkaMessage, info: DeadLetterInfo): OutgoingMessage {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers ?? {})) if (value !== undefined) headers[name] = String(value);
  return {
    key: message.key?.toString('utf8') ?? '',
    value: message.value?.toString('utf8') ?? '',
    headers: {
      ...headers,
      'dead-letter-group': info.groupId,
      'dead-letter-topic': info.topic,
      'dead-letter-partition': String(info.partition),
      'dead-letter-offset': message.offset,
      'dead-letter-reason': info.reason,
      'dead-letter-detail': info.detail.slice(0, MAX_DETAIL),
      'dead-letter-at': new Date().toISOString(),
    },
  };
}
