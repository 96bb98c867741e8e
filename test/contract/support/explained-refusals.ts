import { interactionsOf, type Interaction } from './fuzz-report';

/**
 * The exception list of `npm run fuzz`: refusals of requests the document calls valid that are NOT a gap between the
 * document and the server, because the rule behind them depends on something no JSON Schema can see — the record's
 * current state, the clock, other fields of the same body, or what the organisation has stored. The document states
 * each rule in the operation's description or its documented error answers (schemathesis_hooks.py says how the gate's
 * valid requests keep them).
 *
 * A long exploration uses up its seeded records (deals get won, broadcasts launched, the funnel fills its 30 stages),
 * so schemathesis warns `validation_mismatch` on operations whose valid requests are then mostly refused. The
 * exploration reads every such refusal and excuses only those matching an entry below; any other is printed as an
 * unexplained refusal — a real mismatch to fix in the document or the server. The deterministic gate excuses nothing:
 * it fails on any validation_mismatch warning.
 */
export const EXPLAINED_REFUSALS: ReadonlyArray<{ code: string; issue?: RegExp; phase?: string; why: string }> = [
  { code: 'INVALID_STATUS', why: 'the action does not apply to the record in its current state (a won deal cannot be won again)' },
  { code: 'NOT_FOUND', why: 'an earlier request of the same run deleted the record' },
  {
    code: 'INVALID_ID',
    phase: 'stateful',
    why: "the stateful phase carried another kind's id into the path (a funnel's into a deal's): the id pattern refuses it",
  },
  { code: 'INVALID_REFERENCE', why: 'an id in the body must name a record of the organisation' },
  { code: 'TEMPLATE_NOT_FOUND', why: 'the template must exist on the channel instance' },
  { code: 'TEMPLATE_ON_QRCODE_BROADCAST', why: 'templates need a cloud-API instance: a rule between two stored records' },
  { code: 'WEBHOOK_LIMIT_EXCEEDED', why: 'the organisation already holds its maximum of subscriptions' },
  { code: 'WARMUP_LIMIT_EXCEEDED', why: "the number's warm-up cap on today's sends" },
  { code: 'DUPLICATE_CONTACT', why: 'e-mail and phone are unique among the stored contacts (an example sent twice)' },
  { code: 'COMPANY_HAS_LINKS', why: 'a company still linked to contacts or deals is kept' },
  { code: 'STAGE_HAS_DEALS', why: 'a stage still holding deals is kept' },
  { code: 'MIXED_PROVIDERS', why: 'the named channel instances must share one provider: a rule between stored records' },
  { code: 'MISSING_CLOUD_TEMPLATE', why: 'whether a template is needed depends on the stored instance’s provider' },
  { code: 'TEMPLATE_NOT_APPROVED', why: "the template's review status" },
  { code: 'CHANNEL_DISCONNECTED', why: 'the channel instance is offline' },
  { code: 'CONTACT_CHANNEL_UNAVAILABLE', why: 'the contact has no address on that channel' },
  { code: 'OUTSIDE_MESSAGING_WINDOW', why: "the conversation's 24-hour window, relative to the clock" },
  {
    code: 'VALIDATION_ERROR',
    issue: /must be in the future|must not be in the future|must be within a year/,
    why: 'relative to the clock',
  },
  { code: 'VALIDATION_ERROR', issue: /must be later than/, why: 'a comparison between two fields of the body' },
  { code: 'VALIDATION_ERROR', issue: /is given twice/, why: 'uniqueness by one field of array items (uniqueItems compares whole items)' },
  { code: 'VALIDATION_ERROR', issue: /current funnel/, why: "depends on the deal's current funnel" },
  { code: 'VALIDATION_ERROR', issue: /has at most \d+ stages/, why: 'a cap on the records the funnel already holds' },
  { code: 'VALIDATION_ERROR', issue: /custom field has this key/, why: 'keys must be custom fields the organisation defined' },
  {
    code: 'VALIDATION_ERROR',
    issue: /names kinds the subscription does not receive/,
    why: "a replay's types must be kinds of the subscription's stored event filter",
  },
  { code: 'VALIDATION_ERROR', issue: /IANA time zone/, why: "the runtime's time-zone database, not a pattern" },
  { code: 'VALIDATION_ERROR', issue: /is not an allowed model/, why: 'the models this deployment is configured with' },
  {
    code: 'VALIDATION_ERROR',
    issue: /unpaired UTF-16 surrogates/,
    why: 'JSON Schema patterns match code points, so a lone surrogate cannot be stated (NUL is refused with it)',
  },
];

interface RefusalDetails {
  code?: string;
  details?: { fields?: Array<{ issue?: string }> };
}

/** Whether a refusal matches the exception list: its code, and for VALIDATION_ERROR every field's issue. */
export function isExplained(interaction: Interaction): boolean {
  let error: RefusalDetails | undefined;
  try {
    error = (JSON.parse(interaction.body ?? '') as { error?: RefusalDetails }).error;
  } catch {
    return false;
  }
  const rules = EXPLAINED_REFUSALS.filter((rule) => rule.code === error?.code && (!rule.phase || rule.phase === interaction.phase));
  if (rules.length === 0) return false;
  if (rules.every((rule) => !rule.issue)) return true;
  const issues = (error?.details?.fields ?? []).map((field) => field.issue ?? '');
  return issues.length > 0 && issues.every((issue) => rules.some((rule) => rule.issue?.test(issue)));
}

/**
 * The refusals behind schemathesis's validation_mismatch warnings that the exception list does not explain: valid
 * requests (by the document) to a warned operation answered 4xx for another reason.
 */
export async function unexplainedRefusals(ndjsonFile: string, warnedOperations: string[]): Promise<Interaction[]> {
  const warned = new Set(warnedOperations);
  const found: Interaction[] = [];
  for await (const interaction of interactionsOf(ndjsonFile)) {
    const refused = interaction.status >= 400 && interaction.status < 500;
    if (warned.has(interaction.operation) && interaction.mode === 'positive' && refused && !isExplained(interaction))
      found.push(interaction);
  }
  return found;
}
