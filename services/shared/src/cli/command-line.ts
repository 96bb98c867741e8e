import { relative } from 'node:path';
import { parseArgs } from 'node:util';

/** One `--option` of a command. Without `value` it is a flag. */
export interface CliOption {
  name: string;
  /** How the value is shown in the help (`<org_id>`); absent for a flag. */
  value?: string;
  required?: boolean;
  /** The only values accepted; anything else is refused before the command runs. */
  choices?: readonly string[];
  /** The value must be a whole number (at least `min`). */
  integer?: { min: number; max?: number };
  help: string;
}

export type CliValues = Record<string, string | boolean | undefined>;

/** An option's text: '' when absent (a required option was checked before the command ran). */
export const text = (value: string | boolean | undefined): string => (typeof value === 'string' ? value : '');
/** An optional option's text, or undefined when absent or empty. */
export const optional = (value: string | boolean | undefined): string | undefined => text(value) || undefined;

export interface CliCommand<Context> {
  name: string;
  summary: string;
  options: readonly CliOption[];
  /** A complete command line a person can copy (without the program's invocation). */
  example: string;
  /** False for commands that need no context (no database connection). */
  needsContext?: boolean;
  run(values: CliValues, context: Context): Promise<unknown>;
}

export interface CliProgram<Context> {
  /** How a person runs it: `npm run admin --`. */
  invocation: string;
  about: string;
  /** The environment it reads, one line per variable. */
  environment: readonly string[];
  commands: ReadonlyArray<CliCommand<Context>>;
  /** A program of one command, run without naming it (`npm run webhooks:listen -- --events …`). */
  single?: boolean;
  /** Opens what the commands need (a database connection, clients); closed after the command. */
  open(): Promise<{ context: Context; close(): Promise<void> }>;
}

/** How this process was started, for the help's examples: `npm run admin --` or `node dist/…/admin.js`. */
export function invocation(): string {
  const script = process.env.npm_lifecycle_event;
  return script ? `npm run ${script} --` : `node ${relative(process.cwd(), process.argv[1] ?? '')}`;
}

/** A refusal of the command line itself (unknown command or option, missing or invalid value): exit code 2. */
export class UsageError extends Error {}

const GLOBAL_OPTIONS: readonly CliOption[] = [
  { name: 'json', help: 'print the result as one line of JSON (for scripts)' },
  { name: 'field', value: '<name>', help: 'print only this field of the result (ORG=$(… --field id))' },
  { name: 'help', help: 'this help' },
];

const optionUsage = (option: CliOption) =>
  option.value ? `--${option.name} ${option.choices ? option.choices.join('|') : option.value}` : `--${option.name}`;

/** The whole help (every command, every option, an example each), or one command's. */
export function helpText<Context>(program: CliProgram<Context>, only?: CliCommand<Context>): string {
  const width = Math.max(...program.commands.flatMap((command) => command.options.map((option) => optionUsage(option).length)), 20);
  const describe = (command: CliCommand<Context>) =>
    [
      `  ${command.name}  ${command.summary}`,
      ...command.options.map(
        (option) => `      ${optionUsage(option).padEnd(width)}  ${option.required ? '(required) ' : ''}${option.help}`,
      ),
      `      example: ${program.invocation} ${command.example}`,
    ].join('\n');
  const commands = only ? [only] : program.commands;
  return [
    `Usage: ${program.invocation}${program.single ? '' : ' <command>'} [options] [--json | --field <name>]`,
    '',
    program.about,
    '',
    program.single ? 'Options:' : 'Commands:',
    commands.map(describe).join('\n\n'),
    '',
    'Every command:',
    ...GLOBAL_OPTIONS.map((option) => `      ${optionUsage(option).padEnd(width)}  ${option.help}`),
    '',
    'Environment:',
    ...program.environment.map((line) => `  ${line}`),
  ].join('\n');
}

/** Parses and checks the arguments of one command; every refusal is one line naming the option. */
export function parseCommandLine<Context>(
  program: CliProgram<Context>,
  argv: readonly string[],
): { command?: CliCommand<Context>; values: CliValues } {
  if (program.single) argv = [program.commands[0]?.name ?? '', ...argv];
  const name = argv[0];
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') return { values: { help: true } };
  const command = program.commands.find((candidate) => candidate.name === name);
  if (!command)
    throw new UsageError(`unknown command '${name}' (commands: ${program.commands.map((candidate) => candidate.name).join(', ')})`);
  const options = [...command.options, ...GLOBAL_OPTIONS];
  let parsed: { values: CliValues; positionals: string[] };
  try {
    parsed = parseArgs({
      args: argv.slice(1),
      allowPositionals: true,
      strict: true,
      options: Object.fromEntries(options.map((option) => [option.name, { type: option.value ? 'string' : 'boolean' }] as const)),
    }) as { values: CliValues; positionals: string[] };
  } catch (error) {
    throw new UsageError(parseFailure(error, command.name, options));
  }
  const { values, positionals } = parsed;
  if (values.help) return { command, values };
  if (positionals.length > 0) throw new UsageError(`${command.name} takes no argument '${positionals[0]}' (options start with --)`);
  for (const option of command.options) checkOption(option, values[option.name], command.name);
  return { command, values };
}

function checkOption(option: CliOption, value: string | boolean | undefined, command: string): void {
  if (value === undefined || value === '') {
    if (option.required) throw new UsageError(`${command} needs --${option.name}${option.value ? ` ${option.value}` : ''}`);
    return;
  }
  if (typeof value !== 'string') return;
  if (option.choices && !option.choices.includes(value))
    throw new UsageError(`--${option.name} must be one of ${option.choices.join(', ')} (got '${value}')`);
  if (option.integer) {
    const number = Number(value);
    const { min, max } = option.integer;
    if (!/^-?\d+$/.test(value) || number < min || (max !== undefined && number > max))
      throw new UsageError(
        `--${option.name} must be a whole number ${max === undefined ? `of at least ${min}` : `from ${min} to ${max}`} (got '${value}')`,
      );
  }
}

function parseFailure(error: unknown, command: string, options: readonly CliOption[]): string {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  const option = /'(-{1,2}[^'\s]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
    return `unknown option ${option ?? ''} for ${command} (options: ${options.map((o) => `--${o.name}`).join(', ')})`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE')
    return option && /argument missing/.test(message) ? `${option} needs a value` : `${option ?? 'an option'} takes no value`;
  return firstLine(message);
}

const firstLine = (text: string): string =>
  text
    .split('\n')
    .find((line) => line.trim())
    ?.trim() ?? text;

/**
 * Runs a program on its arguments and answers the exit code: 0 done, 1 the command failed (its reason on one
 * line: an unknown organization, number, key …), 2 the command line was refused. The result goes to stdout,
 * as JSON with --json, else as `key: value` lines.
 */
export async function runCli<Context>(program: CliProgram<Context>, argv: readonly string[]): Promise<number> {
  const hint = (command?: CliCommand<Context>) => `(${program.invocation} ${command && !program.single ? `${command.name} ` : ''}--help)`;
  let parsed: ReturnType<typeof parseCommandLine<Context>>;
  try {
    parsed = parseCommandLine(program, argv);
  } catch (error) {
    console.error(`error: ${firstLine(error instanceof Error ? error.message : String(error))} ${hint()}`);
    return 2;
  }
  const { command, values } = parsed;
  if (!command || values.help) {
    console.log(helpText(program, command));
    return 0;
  }
  let opened: Awaited<ReturnType<CliProgram<Context>['open']>> | undefined;
  try {
    if (command.needsContext !== false) opened = await program.open();
    const result = await command.run(values, opened?.context as Context);
    console.log(
      typeof values.field === 'string' ? fieldOf(result, values.field) : values.json ? JSON.stringify(result) : humanText(result),
    );
    return 0;
  } catch (error) {
    const usage = error instanceof UsageError;
    console.error(`error: ${firstLine(error instanceof Error ? error.message : String(error))}${usage ? ` ${hint(command)}` : ''}`);
    return usage ? 2 : 1;
  } finally {
    await opened?.close();
  }
}

/** One field of the result, for a shell variable; refused when the result has none of that name. */
function fieldOf(result: unknown, name: string): string {
  const value = typeof result === 'object' && result !== null ? (result as Record<string, unknown>)[name] : undefined;
  if (value === undefined) throw new UsageError(`the result has no field '${name}' (fields: ${Object.keys(result ?? {}).join(', ')})`);
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function humanText(result: unknown): string {
  if (typeof result !== 'object' || result === null) return String(result);
  return Object.entries(result)
    .map(([key, value]) => `${key}: ${typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value)}`)
    .join('\n');
}

/** Ends the process with the program's exit code once its output is written (an idle client must not keep it alive). */
export function exitWith(code: Promise<number>): void {
  const exit = (status: number) => process.stdout.write('', () => process.stderr.write('', () => process.exit(status)));
  code.then(exit, (error: unknown) => {
    console.error(`error: ${firstLine(error instanceof Error ? error.message : String(error))}`);
    exit(1);
  });
}
