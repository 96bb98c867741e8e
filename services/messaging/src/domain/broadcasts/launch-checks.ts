import { AppError } from '@crm/shared';
import type { MessagingDeps } from '../deps';
import { countAudience } from './audience';
import type { BroadcastRecord } from '../../repository/broadcast.repository';

/**
 * What must hold for a broadcast to start sending (#64, #65, a scheduled launch, and #67 with `resuming`): a message
 * for its channel, an approved template for official numbers, every number connected, and the warm-up limit.
 */
export async function checkLaunch(
  deps: MessagingDeps,
  record: BroadcastRecord,
  options: { override: boolean; resuming?: boolean },
): Promise<void> {
  const channel = record.instances[0]?.channel ?? 'qrcode';
  if (record.instances.some((instance) => instance.channel !== channel))
    throw new AppError('MIXED_PROVIDERS', 'A broadcast sends from QR-code numbers or from official numbers, not both.');
  if (!options.resuming) await checkContent(deps, record, channel);
  const instances = await deps.instances.getMany(
    record.org_id,
    record.instances.map((instance) => instance.id),
  );
  const offline = record.instances.find((ref) => instances.find((i) => i.id === ref.id)?.status !== 'connected');
  if (offline) {
    const status = instances.find((i) => i.id === offline.id)?.status ?? 'removed';
    throw new AppError('CHANNEL_DISCONNECTED', `The number ${offline.name} is ${status}; reconnect it before sending.`, {
      instance_id: offline.id,
      status,
    });
  }
  if (!options.override) await checkWarmup(deps, record, instances, Boolean(options.resuming));
}

async function checkContent(deps: MessagingDeps, record: BroadcastRecord, channel: 'qrcode' | 'official'): Promise<void> {
  if (channel === 'qrcode') {
    if (!record.message) throw new AppError('MISSING_MESSAGE', 'A QR-code broadcast needs a message: set message with PATCH, then launch.');
    return;
  }
  const reference = record.cloud_template;
  if (!reference)
    throw new AppError(
      'MISSING_CLOUD_TEMPLATE',
      'An official broadcast sends an approved template: set cloudTemplate with PATCH, then launch.',
    );
  const template = await deps.templates.getById(record.org_id, reference.template_id);
  if (!template)
    throw new AppError(
      'MISSING_CLOUD_TEMPLATE',
      `The template ${reference.name} (${reference.language}) no longer exists; set another cloudTemplate.`,
      {
        template_id: reference.template_id,
      },
    );
  if (template.status !== 'APPROVED')
    throw new AppError(
      'TEMPLATE_NOT_APPROVED',
      `The template ${template.name} (${template.language}) is ${template.status}; only APPROVED templates can be sent.`,
      {
        template_id: template.id,
        status: template.status,
      },
    );
}

/**
 * A number in warm-up sends at most `daily_limit` messages a day. Its volume is what it sent in the last 24 hours
 * plus its share of this broadcast (the recipients are spread evenly over the numbers; on resume, what is left).
 */
async function checkWarmup(
  deps: MessagingDeps,
  record: BroadcastRecord,
  instances: Awaited<ReturnType<MessagingDeps['instances']['getMany']>>,
  resuming: boolean,
): Promise<void> {
  const limited = instances.filter((instance) => instance.warmup.active && instance.warmup.daily_limit !== null);
  if (limited.length === 0) return;
  const reached = resuming
    ? 0
    : (await countAudience(deps, record.org_id, { audience: record.audience, marketing: record.cloud_template?.category === 'marketing' }))
        .reached;
  const since = new Date(deps.now().getTime() - 24 * 3_600_000);
  const over: Array<{ id: string; daily_limit: number; volume: number }> = [];
  for (const instance of limited) {
    const index = record.instances.findIndex((ref) => ref.id === instance.id);
    const volume = resuming
      ? await leftPlusSent(deps, record, instance.id, since)
      : Math.floor(reached / record.instances.length) +
        (index < reached % record.instances.length ? 1 : 0) +
        (await deps.messages.countOutboundSince(record.org_id, instance.id, since));
    const limit = instance.warmup.daily_limit ?? 0;
    if (volume > limit) over.push({ id: instance.id, daily_limit: limit, volume });
  }
  if (over.length > 0)
    throw new AppError(
      'WARMUP_LIMIT_EXCEEDED',
      `${over.map((o) => `${o.id} would send ${o.volume} messages in 24 hours, above its warm-up limit of ${o.daily_limit}`).join('; ')}. Send again with confirmWarmupOverride: true to force it.`,
      { instances: over },
    );
}

/**
 * What is left of the broadcast on this number plus what the number sent since `since`, read in one transaction: one
 * snapshot. A send of the paused lane still in flight stores its message and leaves `pending` in one transaction;
 * landing between two separate counts it would be counted as both.
 */
function leftPlusSent(deps: MessagingDeps, record: BroadcastRecord, instanceId: string, since: Date): Promise<number> {
  return deps.transaction(
    async (session) =>
      (await deps.broadcasts.recipients.countPending(record.id, instanceId, session)) +
      (await deps.messages.countOutboundSince(record.org_id, instanceId, since, session)),
  );
}
