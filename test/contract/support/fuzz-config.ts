import { ID_PREFIXES, type IdKind } from '@crm/shared';

/**
 * The schemathesis configuration of one run: the committed base (test/contract/schemathesis.toml: checks, warnings)
 * and, from the served document and the fuzz organisation's pools (fuzz-org.ts), a dictionary per pool and, per
 * operation, which pool feeds each id it takes — path parameters, query parameters and body fields alike — so that
 * most generated requests name records that exist, in the state the operation starts from.
 */
type Json = Record<string, any>;

/** With this probability a bound value comes from its pool; otherwise schemathesis generates one (mostly a 404). */
const FROM_POOL = 0.9;

/** The general pool of each kind of id. */
const POOL_OF_KIND: Partial<Record<IdKind, string>> = {
  contact: 'contacts',
  company: 'companies',
  deal: 'deals',
  note: 'contactNotes',
  funnel: 'funnels',
  stage: 'stages',
  task: 'tasks',
  conversation: 'conversations',
  message: 'messages',
  chatInstance: 'qrcodeInstances',
  template: 'templates',
  broadcast: 'broadcasts',
  aiAgent: 'agents',
  agentRun: 'runs',
  webhook: 'webhooks',
  delivery: 'deliveries',
  member: 'members',
  event: 'events',
  replay: 'replays',
};

/**
 * Operations that need other records than their kind's general pool: those that change a record's state take their
 * own records in the state they start from, and sub-resources take their parent (notes of one contact, stages of
 * one funnel). Keyed by operationId, then by binding (`path.<name>`, `query.<name>`, `body.<path>`).
 */
const OPERATION_POOLS: Record<string, Record<string, string>> = {
  deleteContact: { 'path.id': 'contactsToDelete' },
  mergeContacts: { 'path.id': 'mergeSurvivors', 'body.contact_ids[*]': 'contactsToMerge' },
  optOutContact: { 'path.id': 'contactsToOptOut' },
  removeContactTag: { 'path.tag': 'tags' },
  updateContactNote: { 'path.id': 'noteContacts', 'path.noteId': 'contactNotes' },
  deleteContactNote: { 'path.id': 'noteContacts', 'path.noteId': 'contactNotesToDelete' },
  deleteCompany: { 'path.id': 'companiesToDelete' },
  deleteDeal: { 'path.id': 'dealsToDelete' },
  winDeal: { 'path.id': 'dealsToWin' },
  loseDeal: { 'path.id': 'dealsToLose' },
  reopenDeal: { 'path.id': 'dealsClosed' },
  updateDealNote: { 'path.id': 'noteDeals', 'path.noteId': 'dealNotes' },
  deleteDealNote: { 'path.id': 'noteDeals', 'path.noteId': 'dealNotesToDelete' },
  deleteStage: { 'path.stageId': 'stagesToDelete' },
  deleteTask: { 'path.id': 'tasksToDelete' },
  completeTask: { 'path.id': 'tasksToComplete' },
  reopenTask: { 'path.id': 'tasksDone' },
  closeConversation: { 'path.id': 'conversationsToClose' },
  getChatInstance: { 'path.id': 'instances' },
  listTemplates: { 'path.id': 'instances' },
  deleteBroadcast: { 'path.id': 'broadcastsToDelete' },
  launchBroadcast: { 'path.id': 'broadcastsToLaunch' },
  scheduleBroadcast: { 'path.id': 'broadcastsToSchedule' },
  pauseBroadcast: { 'path.id': 'broadcastsSending' },
  resumeBroadcast: { 'path.id': 'broadcastsPaused' },
  cancelBroadcast: { 'path.id': 'broadcastsScheduled' },
  listBroadcastRecipients: { 'path.id': 'broadcastsLaunched' },
  deleteAiAgent: { 'path.id': 'agentsToDelete' },
  activateAiAgent: { 'path.id': 'agentsToActivate' },
  deactivateAiAgent: { 'path.id': 'agentsActive' },
  deleteWebhook: { 'path.id': 'webhooksToDelete' },
  // No general pool of keys: the only key of the fuzz organisation's that any operation would name is its own.
  revokeApiKey: { 'path.id': 'apiKeysToRevoke' },
  transferDeal: { 'path.id': 'dealsToTransfer', 'body.funnel_id': 'otherFunnels', 'body.stage_id': 'otherStages' },
  sendMessage: { 'body.contact_id': 'chatContacts', 'body.conversation_id': 'chatConversations' },
  // Replays: to the subscription of one kind, of that kind (a kind it does not receive is refused), and followed on it.
  startWebhookReplay: { 'path.id': 'replayWebhooks', 'body.types[*]': 'replayKinds' },
  getWebhookReplay: { 'path.id': 'replayWebhooks', 'path.replayId': 'replays' },
};

/**
 * Operations that use up the record they act on (delete it, or move it out of the state they start from): each phase
 * of a run gives their valid requests a record of their own (schemathesis_hooks.py), so that every phase reaches the
 * operation's logic at least once instead of meeting only records an earlier phase already changed.
 */
const CONSUMING = [
  'deleteContact',
  'deleteContactNote',
  'deleteCompany',
  'deleteDeal',
  'winDeal',
  'loseDeal',
  'reopenDeal',
  'transferDeal',
  'deleteDealNote',
  'deleteStage',
  'deleteTask',
  'completeTask',
  'reopenTask',
  'closeConversation',
  'deleteBroadcast',
  'launchBroadcast',
  'scheduleBroadcast',
  'pauseBroadcast',
  'resumeBroadcast',
  'cancelBroadcast',
  'deleteAiAgent',
  'activateAiAgent',
  'deactivateAiAgent',
  'deleteWebhook',
  'revokeApiKey',
];

const KIND_OF_PREFIX = new Map<string, IdKind>(Object.entries(ID_PREFIXES).map(([kind, prefix]) => [prefix, kind as IdKind]));
const ID_PATTERN = /^\^([a-z]+)_\[0-9A-Za-z\]\{22\}\$$/;

/** The id kind a JSON Schema describes, from its pattern. */
const idKind = (schema: Json | undefined): IdKind | undefined => {
  const prefix = typeof schema?.pattern === 'string' ? ID_PATTERN.exec(schema.pattern)?.[1] : undefined;
  return prefix ? KIND_OF_PREFIX.get(prefix) : undefined;
};

/** Every id field of a body schema as a schemathesis binding key (`body.contact_ids[*]`), with its kind. */
function bodyIds(schema: Json | undefined, components: Json, path: string, seen = new Set<string>()): Array<[string, IdKind]> {
  if (!schema) return [];
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').pop() as string;
    if (seen.has(name)) return [];
    return bodyIds(components[name], components, path, new Set([...seen, name]));
  }
  const kind = idKind(schema);
  if (kind) return [[path, kind]];
  const found: Array<[string, IdKind]> = [];
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Json))
    found.push(...bodyIds(property, components, `${path}.${name}`, seen));
  if (schema.items) found.push(...bodyIds(schema.items, components, `${path}[*]`, seen));
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    for (const branch of (schema[key] ?? []) as Json[]) found.push(...bodyIds(branch, components, path, seen));
  return found;
}

/** binding key → pool, for one operation of the document. */
export function operationBindings(operation: Json, components: Json): Record<string, string> {
  const bindings: Record<string, string> = {};
  for (const parameter of (operation.parameters ?? []) as Json[]) {
    const kind = idKind(parameter.schema);
    const pool = kind && POOL_OF_KIND[kind];
    if (pool) bindings[`${parameter.in}.${parameter.name}`] = pool;
  }
  const body = operation.requestBody?.content?.['application/json']?.schema as Json | undefined;
  for (const [key, kind] of bodyIds(body, components, 'body')) {
    const pool = POOL_OF_KIND[kind];
    if (pool) bindings[key] = pool;
  }
  return { ...bindings, ...OPERATION_POOLS[operation.operationId as string] };
}

/** `METHOD /path` → {path parameter → the ids of its pool}, for the consuming operations (CONSUMING). */
export function freshRecords(document: Json, pools: Record<string, string[]>): Record<string, Record<string, string[]>> {
  const table: Record<string, Record<string, string[]>> = {};
  for (const [path, methods] of Object.entries(document.paths as Json)) {
    for (const [method, operation] of Object.entries(methods as Json) as Array<[string, Json]>) {
      if (!CONSUMING.includes(operation.operationId as string)) continue;
      const own = Object.entries(OPERATION_POOLS[operation.operationId as string] ?? {}).filter(([key]) => key.startsWith('path.'));
      table[`${method.toUpperCase()} ${path}`] = Object.fromEntries(
        own.map(([key, pool]) => [key.slice('path.'.length), pools[pool] ?? []]),
      );
    }
  }
  return table;
}

const toml = (value: unknown): string => JSON.stringify(value);

/** The generated part of the run's configuration, appended to the committed base. */
export function poolsToml(document: Json, pools: Record<string, string[]>): string {
  const lines: string[] = [];
  for (const [name, values] of Object.entries(pools)) {
    if (values.length === 0) continue;
    lines.push(`[dictionaries.${name}]`, `values = ${toml(values)}`, '');
  }
  const components = (document.components?.schemas ?? {}) as Json;
  for (const methods of Object.values(document.paths as Json)) {
    for (const operation of Object.values(methods as Json) as Json[]) {
      const bindings = Object.entries(operationBindings(operation, components)).filter(([, pool]) => pools[pool]?.length);
      if (bindings.length === 0) continue;
      const table = bindings.map(([key, pool]) => `${toml(key)} = { dictionary = ${toml(pool)}, probability = ${FROM_POOL} }`);
      lines.push('[[operations]]', `include-operation-id = ${toml(operation.operationId)}`, `parameters = { ${table.join(', ')} }`, '');
    }
  }
  return lines.join('\n');
}
