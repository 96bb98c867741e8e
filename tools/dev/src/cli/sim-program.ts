import { createChatInstanceRepository } from '@crm/messaging/src/repository/chat-instance.repository';
import { loadMessagingDatabaseConfig } from '@crm/messaging/src/config';
import { connectStorage } from '@crm/shared';
import { invocation, text, UsageError, type CliCommand, type CliOption, type CliProgram, type CliValues } from '@crm/shared/cli';
import { INSTANCE_KINDS, TEMPLATE_STATUSES, type InstanceKind } from '@crm/shared/schemas';

/** What the commands use: the simulator's control API, and the messaging database to tell real numbers from typos. */
export interface SimContext {
  simUrl: string;
  /** The provider handle a command acts on: --to, else the one the simulator used last; refused unless messaging has it. */
  numberOf(values: CliValues): Promise<{ kind: InstanceKind; ref: string }>;
  control(path: string, body?: Record<string, unknown>): Promise<unknown>;
}

const PHONE = /^\+?\d{6,15}$/;
const CHANNEL: CliOption = { name: 'channel', value: '<kind>', choices: INSTANCE_KINDS, help: 'the provider (default qrcode)' };
const TO: CliOption = {
  name: 'to',
  value: '<handle>',
  help: "the number's or page's provider handle (default: the one the simulator used last for the channel)",
};
const channelOf = (values: CliValues): InstanceKind => (text(values.channel) || 'qrcode') as InstanceKind;

/** A sender as its channel names people: a phone number for chatapp numbers, any handle for the social pages. */
function sender(values: CliValues, option: string): string {
  const value = text(values[option]);
  if ((channelOf(values) === 'qrcode' || channelOf(values) === 'official') && !PHONE.test(value))
    throw new UsageError(`--${option} must be a phone number like +15550001111 on ${channelOf(values)} (got '${value}')`);
  return value;
}

/** Every callback the simulator posted must have been taken by the messaging service, else nothing happened. */
function delivered(answer: unknown): unknown {
  const { callback_statuses, callback_status } = answer as { callback_statuses?: number[]; callback_status?: number | null };
  const failed = [...(callback_statuses ?? []), ...(callback_status == null ? [] : [callback_status])].find(
    (status) => status >= 300 || status < 200,
  );
  if (failed !== undefined)
    throw new Error(
      failed === 0
        ? 'the messaging service did not answer the callback (is it running? SIM_CALLBACK_URL)'
        : `the messaging service refused the callback with ${failed}`,
    );
  return answer;
}

export const SIM_COMMANDS: ReadonlyArray<CliCommand<SimContext>> = [
  {
    name: 'inbound',
    summary: 'a person writes to a number or page',
    options: [
      { name: 'from', value: '<+E.164 | handle>', required: true, help: 'who writes' },
      { name: 'text', value: '<text>', required: true, help: 'the message' },
      { name: 'name', value: '<name>', help: "the sender's profile name" },
      CHANNEL,
      TO,
      { name: 'timestamp', value: '<ISO 8601>', help: 'when it was written (default now)' },
      { name: 'repeat', value: '<N>', integer: { min: 1, max: 20 }, help: 'the provider delivers the same callback N times' },
    ],
    example: 'inbound --from +15550001111 --text "hi"',
    run: async (values, sim) => {
      const from = sender(values, 'from');
      if (values.timestamp !== undefined && Number.isNaN(Date.parse(text(values.timestamp))))
        throw new UsageError(`--timestamp must be an ISO 8601 time (got '${text(values.timestamp)}')`);
      const { kind, ref } = await sim.numberOf(values);
      const repeat = values.repeat === undefined ? undefined : Number(values.repeat);
      const body = {
        channel: kind,
        to_number: ref,
        from,
        text: values.text,
        name: values.name,
        timestamp: values.timestamp,
        repeat,
      };
      return delivered(await sim.control('inbound', body));
    },
  },
  {
    name: 'edit',
    summary: 'the person edits a message they sent',
    options: [
      { name: 'from', value: '<+E.164 | handle>', required: true, help: 'who wrote it' },
      { name: 'id', value: '<provider message id>', required: true, help: 'the message (its id in the inbound answer)' },
      { name: 'text', value: '<text>', required: true, help: 'the new text' },
      CHANNEL,
      TO,
    ],
    example: 'edit --from +15550001111 --id 3EB0ABC --text "hi again"',
    run: async (values, sim) => {
      const from = sender(values, 'from');
      const { kind, ref } = await sim.numberOf(values);
      return delivered(await sim.control('edit', { channel: kind, to_number: ref, from, id: values.id, text: values.text }));
    },
  },
  {
    name: 'react',
    summary: 'the person reacts to a message (message.reaction.added; an empty --emoji removes the reaction)',
    options: [
      { name: 'from', value: '<+E.164 | handle>', required: true, help: 'who reacts' },
      { name: 'id', value: '<provider message id>', required: true, help: 'the message reacted to (its external_id)' },
      { name: 'emoji', value: '<emoji>', required: true, help: 'the reaction, e.g. 👍' },
      CHANNEL,
      TO,
    ],
    example: 'react --from +15550001111 --id 3EB0ABC --emoji "👍"',
    run: async (values, sim) => {
      const from = sender(values, 'from');
      const { kind, ref } = await sim.numberOf(values);
      return delivered(await sim.control('reaction', { channel: kind, to_number: ref, from, id: values.id, emoji: text(values.emoji) }));
    },
  },
  {
    name: 'delete',
    summary: 'the person deletes a message for everyone (message.deleted)',
    options: [
      { name: 'from', value: '<+E.164 | handle>', required: true, help: 'who deletes it' },
      { name: 'id', value: '<provider message id>', required: true, help: 'the message (its external_id)' },
      CHANNEL,
      TO,
    ],
    example: 'delete --from +15550001111 --id 3EB0ABC',
    run: async (values, sim) => {
      const from = sender(values, 'from');
      const { kind, ref } = await sim.numberOf(values);
      return delivered(await sim.control('delete', { channel: kind, to_number: ref, from, id: values.id }));
    },
  },
  {
    name: 'qr',
    summary: 'the QR-code session needs pairing again: a new code to scan (channel.qr.updated; sends fail until reconnect)',
    options: [{ name: 'code', value: '<text>', help: 'the code the QR encodes (default: a random one)' }, TO],
    example: 'qr',
    run: async (values, sim) => {
      const { ref } = await sim.numberOf({ ...values, channel: 'qrcode' });
      return delivered(await sim.control('qr', { channel: 'qrcode', to_number: ref, code: values.code }));
    },
  },
  {
    name: 'fail-next',
    summary: 'the next send fails: refused at once (--when send), or accepted and then reported failed (--when delivery)',
    options: [
      { name: 'code', value: '<provider code>', required: true, integer: { min: 1 }, help: "the provider's error code, e.g. 131026" },
      { name: 'message', value: '<text>', help: "the provider's error text" },
      { name: 'when', value: '<send|delivery>', choices: ['send', 'delivery'], help: 'default delivery (message.failed)' },
      CHANNEL,
      TO,
    ],
    example: 'fail-next --code 131026 --when delivery',
    run: async (values, sim) => {
      const { kind, ref } = await sim.numberOf(values);
      const failure = {
        mode: values.when === 'send' ? 'error' : 'failed_status',
        code: Number(values.code),
        message: text(values.message) || 'Message undeliverable',
      };
      return sim.control('numbers', { channel: kind, to_number: ref, fail_next: [failure] });
    },
  },
  {
    name: 'phone-send',
    summary: 'someone types on the QR-code phone itself',
    options: [
      { name: 'recipient', value: '<+E.164>', required: true, help: 'who it goes to' },
      { name: 'text', value: '<text>', required: true, help: 'the message' },
      TO,
    ],
    example: 'phone-send --recipient +15550001111 --text "typed on the phone"',
    run: async (values, sim) => {
      const recipient = sender({ ...values, channel: 'qrcode' }, 'recipient');
      const { ref } = await sim.numberOf({ ...values, channel: 'qrcode' });
      return delivered(await sim.control('phone-send', { channel: 'qrcode', to_number: ref, recipient, text: values.text }));
    },
  },
  ...(['disconnect', 'reconnect'] as const).map((name): CliCommand<SimContext> => ({
    name,
    summary: name === 'disconnect' ? 'the number or page goes offline (channel.disconnected)' : 'it comes back (channel.connected)',
    options: [CHANNEL, TO],
    example: `${name} --channel qrcode`,
    run: async (values, sim) => {
      const { kind, ref } = await sim.numberOf(values);
      return delivered(await sim.control('numbers', { channel: kind, to_number: ref, connected: name === 'reconnect' }));
    },
  })),
  {
    name: 'billing',
    summary: 'an official number has, or loses, its payment method (sends then fail with 131042)',
    options: [
      { name: 'payment-method', value: '<bool>', required: true, choices: ['true', 'false'], help: 'whether one is configured' },
      TO,
    ],
    example: 'billing --payment-method false',
    run: async (values, sim) => {
      const { ref } = await sim.numberOf({ ...values, channel: 'official' });
      return sim.control('numbers', { channel: 'official', to_number: ref, payment_method: values['payment-method'] === 'true' });
    },
  },
  {
    name: 'rate-limit',
    summary: 'the provider accepts at most N sends per window (429 beyond)',
    options: [
      { name: 'limit', value: '<N>', integer: { min: 1 }, help: 'sends per window (default 1)' },
      { name: 'window-ms', value: '<ms>', integer: { min: 1 }, help: 'the window (default 60000)' },
      CHANNEL,
      TO,
    ],
    example: 'rate-limit --limit 2 --window-ms 10000',
    run: async (values, sim) => {
      const { kind, ref } = await sim.numberOf(values);
      const rateLimit = { limit: Number(values.limit ?? 1), window_ms: Number(values['window-ms'] ?? 60_000) };
      return sim.control('numbers', { channel: kind, to_number: ref, rate_limit: rateLimit });
    },
  },
  {
    name: 'template',
    summary: "the provider's review changes a template's status (template.approved, template.rejected)",
    options: [
      { name: 'name', value: '<name>', required: true, help: 'the template' },
      { name: 'language', value: '<code>', required: true, help: 'its language, e.g. en_US' },
      { name: 'status', value: '<status>', required: true, choices: TEMPLATE_STATUSES, help: 'the new status' },
      { name: 'reason', value: '<text>', help: "the provider's reason for a rejection, e.g. INVALID_FORMAT" },
      TO,
    ],
    example: 'template --name summer_sale --language en_US --status APPROVED',
    run: async (values, sim) => {
      const { ref } = await sim.numberOf({ ...values, channel: 'official' });
      const { name, language, status, reason } = values;
      const body = { channel: 'official', to_number: ref, name, language, status, reason };
      return delivered(await sim.control('templates', body));
    },
  },
  {
    name: 'sent',
    summary: 'lists the sends the simulator accepted',
    options: [],
    example: 'sent --json',
    run: (_values, sim) => sim.control('sent'),
  },
  {
    name: 'numbers',
    summary: 'lists the numbers and pages the simulator knows, and the one it uses by default per channel',
    options: [],
    example: 'numbers',
    run: (_values, sim) => sim.control('numbers'),
  },
];

/** `npm run sim`: scripts the provider simulator, refusing numbers, channels and values that do not exist. */
export function simProgram(): CliProgram<SimContext> {
  return {
    invocation: invocation(),
    about: 'Scripts the provider simulator, which stands in for every channel provider locally.',
    environment: [
      'SIM_URL            the simulator (default http://127.0.0.1:8090)',
      'MONGODB_URI        the database server, to check that a number exists (default mongodb://127.0.0.1:27027/?directConnection=true)',
      'MESSAGING_DB_NAME  default messaging',
    ],
    commands: SIM_COMMANDS,
    open: () => Promise.resolve(openSimContext(process.env.SIM_URL ?? 'http://127.0.0.1:8090')),
  };
}

function openSimContext(simUrl: string): { context: SimContext; close(): Promise<void> } {
  let database: ReturnType<typeof connectStorage> | undefined;
  const control = async (path: string, body?: Record<string, unknown>): Promise<unknown> => {
    const response = await fetch(`${simUrl}/control/${path}`, {
      ...(body ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(30_000),
    }).catch(() => {
      throw new Error(`the provider simulator does not answer at ${simUrl} (is npm start running? SIM_URL)`);
    });
    const answer = (await response.json()) as { error?: unknown };
    if (!response.ok)
      throw new Error(`the simulator refused it: ${typeof answer.error === 'string' ? answer.error : JSON.stringify(answer.error)}`);
    return answer;
  };
  const numberOf = async (values: CliValues) => {
    const kind = channelOf(values);
    let ref = text(values.to);
    if (!ref) {
      const { last } = (await control('numbers')) as { last: Partial<Record<InstanceKind, string | null>> };
      ref = last[kind] ?? '';
      if (!ref) throw new UsageError(`the simulator knows no ${kind} number yet: pass --to <handle>`);
    }
    const config = loadMessagingDatabaseConfig();
    database ??= connectStorage(config.MONGODB_URI, config.MESSAGING_DB_NAME);
    if (!(await createChatInstanceRepository(await database).getByProviderRef(kind, ref)))
      throw new Error(
        `no ${kind} number or page '${ref}' exists (database ${config.MESSAGING_DB_NAME}): messaging-admin create-number connects one`,
      );
    return { kind, ref };
  };
  return {
    context: { simUrl, numberOf, control },
    close: async () =>
      void (await database?.then(
        (db) => db.close(),
        () => undefined,
      )),
  };
}
