import { afterEach, describe, expect, it, vi } from 'vitest';
import { helpText, runCli, type CliProgram } from './command-line';

const opened: string[] = [];
const program: CliProgram<{ orgs: string[] }> = {
  invocation: 'npm run demo --',
  about: 'A demo program.',
  environment: ['DEMO_URL  where'],
  commands: [
    {
      name: 'create',
      summary: 'creates one',
      options: [
        { name: 'org', value: '<org_id>', required: true, help: 'the organization' },
        { name: 'kind', value: '<kind>', choices: ['a', 'b'], help: 'its kind' },
        { name: 'count', value: '<N>', integer: { min: 1, max: 5 }, help: 'how many' },
      ],
      example: 'create --org org_1 --kind a',
      run: (values, context) => {
        if (!context.orgs.includes(String(values.org))) throw new Error(`organization ${String(values.org)} does not exist`);
        return Promise.resolve({ id: 'x_1', kind: values.kind ?? 'a' });
      },
    },
  ],
  open: () => {
    opened.push('open');
    return Promise.resolve({ context: { orgs: ['org_1'] }, close: () => Promise.resolve(void opened.push('close')) });
  },
};

async function run(...argv: string[]) {
  const out = vi.spyOn(console, 'log').mockImplementation(() => undefined);
  const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const code = await runCli(program, argv);
  return {
    code,
    out: out.mock.calls.map((call) => String(call[0])).join('\n'),
    err: err.mock.calls.map((call) => String(call[0])).join('\n'),
  };
}
afterEach(() => {
  vi.restoreAllMocks();
  opened.length = 0;
});

describe('command-line kit', () => {
  it('--help names every option, its values and an example', async () => {
    const { code, out } = await run('--help');
    expect(code).toBe(0);
    expect(out).toBe(helpText(program));
    for (const text of [
      '--org <org_id>',
      '--kind a|b',
      '--count <N>',
      '(required)',
      'example: npm run demo -- create --org org_1 --kind a',
      '--json',
      '--field <name>',
      'DEMO_URL',
    ])
      expect(out).toContain(text);
  });

  it('runs a command and prints its result, as JSON or one field', async () => {
    expect(await run('create', '--org', 'org_1', '--json')).toMatchObject({ code: 0, out: '{"id":"x_1","kind":"a"}' });
    expect(await run('create', '--org', 'org_1', '--field', 'id')).toMatchObject({ code: 0, out: 'x_1' });
    expect(opened).toEqual(['open', 'close', 'open', 'close']);
  });

  it.each([
    [['frob'], /^error: unknown command 'frob' \(commands: create\)/],
    [
      ['create', '--org', 'org_1', '--nope'],
      /^error: unknown option --nope for create \(options: --org, --kind, --count, --json, --field, --help\)/,
    ],
    [['create'], /^error: create needs --org <org_id>/],
    [['create', '--org'], /^error: --org needs a value/],
    [['create', '--org', 'org_1', '--kind', 'z'], /^error: --kind must be one of a, b \(got 'z'\)/],
    [['create', '--org', 'org_1', '--count', '9'], /^error: --count must be a whole number from 1 to 5 \(got '9'\)/],
    [['create', '--org', 'org_1', 'stray'], /^error: create takes no argument 'stray'/],
    [['create', '--org', 'org_1', '--field', 'nope'], /^error: the result has no field 'nope' \(fields: id, kind\)/],
  ])('refuses %j with exit 2 and one line', async (argv, reason) => {
    const { code, err } = await run(...argv);
    expect(code).toBe(2);
    expect(err).toMatch(reason);
    expect(err.split('\n')).toHaveLength(1);
  });

  it('answers exit 1 with the one-line reason when the command fails', async () => {
    const { code, err } = await run('create', '--org', 'org_9');
    expect(code).toBe(1);
    expect(err).toBe('error: organization org_9 does not exist');
    expect(opened).toEqual(['open', 'close']);
  });
});
