import { parseArgs } from 'node:util';

const USAGE = `Usage: npm run sim -- <command> [options]

Scripts the provider simulator (SIM_URL, default http://127.0.0.1:8090).

  inbound      --from +15550001111 --text "hi" [--name "Ana"] [--channel qrcode|official|photoapp|socialmsg]
               [--to <number or page handle>] [--timestamp <ISO>] [--repeat N]
  edit         --from +15550001111 --id <provider message id> --text "new text" [--channel ..] [--to ..]
  phone-send   --recipient +15550001111 --text "typed on the phone" [--to ..]       (QR-code numbers)
  disconnect   [--channel ..] [--to ..]      the number or page goes offline (channel.disconnected)
  reconnect    [--channel ..] [--to ..]
  billing      --payment-method true|false [--to ..]                                 (official numbers)
  rate-limit   --limit N --window-ms MS [--channel ..] [--to ..]
  template     --name <name> --language <code> --status APPROVED|PENDING|REJECTED|PAUSED|DISABLED [--to ..]
  sent         lists the sends the simulator accepted
  numbers      lists the numbers and pages the simulator knows

--to defaults to the handle the simulator saw last for the channel (default channel: qrcode).`;

async function main(): Promise<void> {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      from: { type: 'string' },
      text: { type: 'string' },
      name: { type: 'string' },
      channel: { type: 'string' },
      to: { type: 'string' },
      timestamp: { type: 'string' },
      repeat: { type: 'string' },
      id: { type: 'string' },
      recipient: { type: 'string' },
      'payment-method': { type: 'string' },
      limit: { type: 'string' },
      'window-ms': { type: 'string' },
      language: { type: 'string' },
      status: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  const base = process.env.SIM_URL ?? 'http://127.0.0.1:8090';
  const common = { channel: values.channel ?? 'qrcode', ...(values.to ? { to_number: values.to } : {}) };
  const bodies: Record<string, [string, Record<string, unknown>] | [string]> = {
    inbound: [
      'inbound',
      {
        ...common,
        from: values.from,
        text: values.text,
        name: values.name,
        timestamp: values.timestamp,
        repeat: values.repeat ? Number(values.repeat) : undefined,
      },
    ],
    edit: ['edit', { ...common, from: values.from, id: values.id, text: values.text }],
    'phone-send': ['phone-send', { ...common, recipient: values.recipient, text: values.text }],
    disconnect: ['numbers', { ...common, connected: false }],
    reconnect: ['numbers', { ...common, connected: true }],
    billing: ['numbers', { ...common, channel: 'official', payment_method: values['payment-method'] !== 'false' }],
    'rate-limit': [
      'numbers',
      { ...common, rate_limit: { limit: Number(values.limit ?? 1), window_ms: Number(values['window-ms'] ?? 60_000) } },
    ],
    template: ['templates', { ...common, channel: 'official', name: values.name, language: values.language, status: values.status }],
    sent: ['sent'],
    numbers: ['numbers'],
  };
  const command = positionals[0];
  const spec = command ? bodies[command] : undefined;
  if (values.help || !spec || !command) {
    console.log(USAGE);
    return;
  }
  const [path, body] = spec;
  const get = command === 'sent' || command === 'numbers';
  const response = await fetch(
    `${base}/control/${path}`,
    get ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
  );
  console.log(JSON.stringify(await response.json(), null, 2));
  if (!response.ok) process.exit(1);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
