import type { JsonSchema } from './json-schema';

/**
 * Realistic examples built from the JSON Schemas themselves, so they always match the document (the linter checks
 * every example against its schema) and never drift from the routes. Values come from a small dictionary of field
 * names (the same demo organization as the webhook test payloads); anything else falls back to the schema's own
 * constraints (enums, patterns of ids, formats, bounds).
 */
const AT = '2026-03-02T14:30:00.000Z';

/** Values by `<Component>.<field>` first, then by field name. */
const BY_FIELD: Record<string, unknown> = {
  'Company.name': 'Padaria Central',
  'Funnel.name': 'Sales',
  'Stage.name': 'Proposal',
  'Webhook.name': 'CRM sync',
  'Broadcast.name': 'Spring sale',
  'AiAgent.name': 'Sales assistant',
  'Template.name': 'order_update',
  'ChatInstance.name': 'Sales number',
  'Member.name': 'Ana Souza',
  'MemberRef.name': 'Ana Souza',
  'CompanyRef.name': 'Padaria Central',
  'FunnelRef.name': 'Sales',
  'StageRef.name': 'Proposal',
  'AiAgentRef.name': 'Sales assistant',
  'Tag.name': 'vip',
  'CustomFieldDefinition.name': 'Plan interest',
  'EventType.type': 'contact.created',
  'EventType.description': 'A contact was created (POST /v1/contacts).',
  name: 'Maria Oliveira',
  title: 'Annual plan – Padaria Central',
  email: 'maria.oliveira@example.com',
  phone: '+5511987654321',
  phone_number: '+5511987654321',
  website: 'https://padariacentral.example',
  url: 'https://hooks.example.com/crm',
  media_url: 'https://cdn.example.com/catalogue.pdf',
  avatar_url: 'https://cdn.example.com/avatars/maria.jpg',
  content: 'Yes, the annual plan is 10% off until Friday.',
  description: 'Follow-up on the annual plan proposal.',
  instructions: 'Answer questions about plans and prices politely; hand over to a human for discounts.',
  lost_reason: 'Chose a competitor',
  tag: 'vip',
  color: '#3B82F6',
  sector: 'Food & beverage',
  city: 'São Paulo',
  state: 'SP',
  currency: 'BRL',
  timezone: 'America/Sao_Paulo',
  language: 'pt_BR',
  template_language: 'pt_BR',
  template_name: 'order_update',
  chatapp_jid: '5511987654321@c.us',
  secret: 'whsec_MfKQ9r8GkgvVaNyhuZ9N5g2mRqWzLx7kP3cT1bYsHdE=',
  prefix: 'sk_live_ab12',
  model: 'gpt-4o-mini',
  value: 4800,
  probability: 60,
  position: 0,
  temperature: 0.3,
  total: 1,
  count: 12,
  estimated_count: 1180,
  estimated_exclusions: 20,
  duration_ms: 184,
  response_status: 200,
  reply_delay_ms: 2000,
  replyDelayMs: 2000,
  max_replies_per_conversation: 5,
  maxRepliesPerConversation: 5,
  request_id: 'req_9Xc2LmQ7wRt4KpZ8vNb3Yd',
  scheduledAt: '2026-03-09T12:00:00.000Z',
  createdAfter: '2026-01-01T00:00:00.000Z',
  createdBefore: '2026-03-01T00:00:00.000Z',
  created_after: '2026-01-01T00:00:00.000Z',
  created_before: '2026-03-01T00:00:00.000Z',
  since: '2026-03-02T13:30:00.000Z',
  until: AT,
  external_id: 'shop-10482',
  sourceKey: 'first_name',
  fallback: 'friend',
};

const ID_BODY = 'Qw3Er5Ty7Ui9Op1As2Df4G';
/** References ({id, name}) by the field that holds them. */
const REFS: Record<string, { id: string; name: string }> = {
  funnel: { id: `fn_${ID_BODY}`, name: 'Sales' },
  stage: { id: `st_${ID_BODY}`, name: 'Proposal' },
  company: { id: `co_${ID_BODY}`, name: 'Padaria Central' },
  assigned_to: { id: `mb_${ID_BODY}`, name: 'Ana Souza' },
  author: { id: `mb_${ID_BODY}`, name: 'Ana Souza' },
  agent: { id: `ag_${ID_BODY}`, name: 'Sales assistant' },
  contact: { id: `ct_${ID_BODY}`, name: 'Maria Oliveira' },
};
export class ExampleBuilder {
  constructor(private readonly components: Record<string, JsonSchema>) {}

  /** An example of `schema`; `owner` names the component being described, for field-specific values. */
  build(schema: JsonSchema, owner = '', key = '', depth = 0): unknown {
    if (depth > 12) return null;
    const $ref = schema.$ref as string | undefined;
    if ($ref) {
      const name = $ref.split('/').pop() ?? '';
      if (name === 'Ref' && REFS[key]) return REFS[key];
      const target = this.components[name];
      return target ? this.build(target, name, key, depth + 1) : null;
    }
    if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
    if ('const' in schema) return schema.const;
    if (Array.isArray(schema.enum)) return this.pick(schema.enum, owner, key);
    const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
    // An object's anyOf states a rule between its fields (one of them present: `documented`), not alternatives:
    // the object's example holds every field, which keeps it.
    if (branches && !(schema.type === 'object' && schema.properties)) {
      const chosen = branches.find((branch) => branch.type !== 'null') ?? branches[0];
      return chosen ? this.build(chosen, owner, key, depth + 1) : null;
    }
    if (Array.isArray(schema.allOf) && schema.allOf.length > 0 && !schema.type)
      return this.build(schema.allOf[0] as JsonSchema, owner, key, depth + 1);
    const type = Array.isArray(schema.type) ? (schema.type.find((t) => t !== 'null') ?? 'null') : schema.type;
    switch (type) {
      case 'object':
        return this.object(schema, owner, depth);
      case 'array':
        return this.array(schema, owner, key, depth);
      case 'string':
        return this.string(schema, owner, key);
      case 'integer':
      case 'number':
        return this.number(schema, owner, key, type === 'integer');
      case 'boolean':
        return key === 'is_default' || key === 'enabled' || key === 'api_write';
      case 'null':
        return null;
      default:
        return schema.properties ? this.object(schema, owner, depth) : {};
    }
  }

  private known(owner: string, key: string): unknown {
    return BY_FIELD[`${owner}.${key}`] ?? BY_FIELD[key];
  }

  private pick(values: unknown[], owner: string, key: string): unknown {
    const preferred = this.known(owner, key);
    return values.includes(preferred) ? preferred : values[0];
  }

  private object(schema: JsonSchema, owner: string, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    for (const [name, property] of Object.entries(properties)) out[name] = this.build(property, owner, name, depth + 1);
    // Rules between fields (if/then/else, see `documented`): drop the fields a branch forbids, add those it requires.
    for (const rule of (schema.allOf ?? []) as JsonSchema[]) {
      const branch = (matches(out, rule.if as JsonSchema | undefined) ? rule.then : rule.else) as JsonSchema | undefined;
      if (!branch) continue;
      for (const name of forbidden(branch)) delete out[name];
      for (const name of (branch.required ?? []) as string[]) out[name] ??= this.build(properties[name] ?? {}, owner, name, depth + 1);
    }
    return out;
  }

  private array(schema: JsonSchema, owner: string, key: string, depth: number): unknown[] {
    const prefix = schema.prefixItems as JsonSchema[] | undefined;
    if (prefix) {
      const values = prefix.map((item) => this.build(item, owner, key, depth + 1));
      // A range of times, [from, to]: to must come later.
      return values.length === 2 && values[0] === '09:00' && values[1] === '09:00' ? ['09:00', '18:00'] : values;
    }
    const items = schema.items as JsonSchema | undefined;
    if (!items) return [];
    const count = Math.max(1, Number(schema.minItems ?? 1));
    if (key === 'tags' && (items.type === 'string' || items.type === undefined)) return ['vip', 'lead'].slice(0, Math.max(count, 1));
    return Array.from({ length: count }, () => this.build(items, owner, key, depth + 1));
  }

  private string(schema: JsonSchema, owner: string, key: string): string {
    const known = this.known(owner, key);
    const pattern = schema.pattern as string | undefined;
    const idMatch = pattern ? /^\^([a-z]+)_\[0-9A-Za-z\]\{22\}\$$/.exec(pattern) : null;
    if (idMatch) return `${idMatch[1]}_${ID_BODY}`;
    if (typeof known === 'string' && (!pattern || new RegExp(pattern).test(known))) return this.fit(known, schema);
    if (schema.format === 'date-time' || key.endsWith('_at') || key.endsWith('At')) return AT;
    if (schema.format === 'date' || key.endsWith('_date')) return '2026-03-16';
    if (schema.format === 'uri') return 'https://hooks.example.com/crm';
    if (schema.format === 'email') return 'maria.oliveira@example.com';
    if (pattern) return patternExample(pattern);
    return this.fit(key ? key.replaceAll('_', ' ') : 'text', schema);
  }

  private fit(value: string, schema: JsonSchema): string {
    const min = Number(schema.minLength ?? 0);
    const max = Number(schema.maxLength ?? Infinity);
    return value.padEnd(min, 'x').slice(0, max);
  }

  private number(schema: JsonSchema, owner: string, key: string, integer: boolean): number {
    const known = this.known(owner, key);
    const min = typeof schema.minimum === 'number' ? schema.minimum : -Infinity;
    const max = typeof schema.maximum === 'number' ? schema.maximum : Infinity;
    let value = typeof known === 'number' ? known : 1;
    value = Math.min(Math.max(value, min), max);
    return integer ? Math.ceil(value) : value;
  }
}

/** Whether `value` meets the subset of JSON Schema the rules between fields use: const properties, required, not. */
function matches(value: Record<string, unknown>, schema: JsonSchema | undefined): boolean {
  if (!schema) return false;
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const constsHold = Object.entries(properties).every(
    ([name, property]) => !('const' in property) || value[name] === undefined || value[name] === property.const,
  );
  const present = ((schema.required ?? []) as string[]).every((name) => value[name] !== undefined);
  return constsHold && present && forbidden(schema).every((name) => value[name] === undefined);
}

/** The fields a `not: {required}` or `not: {anyOf: [{required}]}` forbids. */
function forbidden(schema: JsonSchema): string[] {
  const not = schema.not as JsonSchema | undefined;
  if (!not) return [];
  return [not, ...((not.anyOf ?? []) as JsonSchema[])].flatMap((branch) => (branch.required ?? []) as string[]);
}

/** The few non-id patterns of the document, each with one matching value. */
function patternExample(pattern: string): string {
  const candidates = [
    '+5511987654321',
    '#3B82F6',
    '2026-03-16',
    AT,
    'plan_interest',
    'body',
    '09:00',
    `ct_${ID_BODY}`,
    'whsec_MfKQ9r8GkgvVaNyhuZ9N5g2mRqWzLx7kP3cT1bYsHdE=',
    'sk_live_ab12',
    'BRL',
  ];
  return candidates.find((candidate) => new RegExp(pattern).test(candidate)) ?? 'value';
}
