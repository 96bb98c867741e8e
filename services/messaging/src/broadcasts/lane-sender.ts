import { AppError } from '@crm/shared';
import type { SendMessageBody } from '@crm/shared/schemas';
import type { MessagingDeps } from '../domain/deps';
import { deliver, type SendRoute } from '../domain/send';
import { approvedTemplate } from '../domain/send-official';
import { countRecipient } from './broadcast-metrics';
import type { BroadcastRecord, BroadcastTemplate } from '../repository/broadcast.repository';
import type { LaneRecord } from '../repository/lane.repository';
import { paceOf, SendSchedule } from './pacing';
import type { RecipientRecord } from '../repository/recipient.repository';
import { completeIfDone } from '../domain/broadcasts/final-status';

/** How often a sending lane renews its lease and reads its broadcast's status: the delay of a pause. */
const CHECK_EVERY_MS = 250;
const BATCH = 100;
/**
 * Sends one lane has at the provider at once: half a second of sends at its fastest pace, 8 to 40. The schedule
 * decides when a send starts; the window lets it start while earlier ones still wait for the provider and the
 * database, so their latency does not cap the rate (at 80/s, 40 sends of up to 500 ms each).
 */
const windowFor = (minGapMs: number): number => Math.min(40, Math.max(8, Math.ceil(500 / minGapMs)));
/** Sends the provider did not confirm are retried with the same idempotency key this many times. */
const UNCONFIRMED_RETRIES = 4;

type Outcome = 'done' | 'retry' | 'stop';

/**
 * Sends one lane: the pending recipients of one number, started in list order (up to its window at once, so the
 * provider may receive neighbours in either order), at the pace of the send profile, through the
 * messaging send path (#53's rules and errors). It stops when the broadcast is no longer `sending`, when it loses
 * its lease, or when the number disconnects (the broadcast then pauses with the reason in `error`).
 */
export class LaneSender {
  private broadcast!: BroadcastRecord;
  private checkedAt = 0;
  private checking: Promise<boolean> | undefined;
  private running = true;
  private schedule!: SendSchedule;
  private window = 8;
  /** Set by the provider's rate limit: nothing starts before it. */
  private blockedUntil = 0;
  /** The number and template of this lane, read again at every check instead of for every send. */
  private route: SendRoute | undefined;
  /** The last recipient change not yet noted on the broadcast (noted every check, not per message). */
  private changedAt: Date | null = null;
  private sends = 0;

  constructor(
    private readonly deps: MessagingDeps,
    private readonly lane: LaneRecord,
    private readonly owner: string,
    private readonly stopping: () => boolean,
  ) {}

  async run(): Promise<void> {
    const started = Date.now();
    try {
      if (!(await this.check(true))) return;
      const channel = this.broadcast.instances.find((i) => i.id === this.lane.instance_id)?.channel ?? 'qrcode';
      const pace = paceOf(this.broadcast.settings.send_profile, channel, this.deps.broadcasts.settings.paceMultiplier);
      this.schedule = new SendSchedule(pace);
      this.window = windowFor(pace.minGap);
      if (!(await this.sendAll())) return;
      await this.noteChanges();
      this.deps.logger.info({ lane: this.lane.id, sends: this.sends, ms: Date.now() - started }, 'broadcast lane finished');
      if (await this.deps.broadcasts.lanes.finish(this.lane.id, this.owner, this.deps.now()))
        await completeIfDone(this.deps, this.lane.broadcast_id);
    } finally {
      await this.noteChanges().catch(() => undefined);
      await this.deps.broadcasts.lanes.release(this.lane.id, this.owner).catch(() => undefined);
    }
  }

  /** Sends every pending recipient of the lane; false when the lane had to stop before the end. */
  private async sendAll(): Promise<boolean> {
    const { recipients } = this.deps.broadcasts;
    const inFlight = new Set<Promise<void>>();
    let afterSeq = -1;
    for (;;) {
      const batch = await recipients.nextPending(this.lane.broadcast_id, this.lane.instance_id, afterSeq, BATCH);
      if (batch.length === 0) {
        while (inFlight.size > 0) {
          await Promise.race([...inFlight, new Promise((resolve) => setTimeout(resolve, CHECK_EVERY_MS))]);
          await this.check(false);
        }
        if (!this.running) return false;
        // Rows still pending behind the position (a send that stopped) are read again from the start.
        if ((await recipients.countPending(this.lane.broadcast_id, this.lane.instance_id)) === 0) return true;
        afterSeq = -1;
        continue;
      }
      for (const recipient of batch) {
        // While the window is full the lease is still renewed: a slow provider must not look like a dead replica.
        while (this.running && inFlight.size >= this.window) {
          await Promise.race([...inFlight, new Promise((resolve) => setTimeout(resolve, CHECK_EVERY_MS))]);
          if (!(await this.check(false))) this.running = false;
        }
        if (!this.running || !(await this.takeSlot())) {
          this.running = false;
          await Promise.all(inFlight);
          return false;
        }
        const sending: Promise<void> = this.sendOne(recipient).then((outcome) => {
          inFlight.delete(sending);
          if (outcome === 'stop') this.running = false;
        });
        inFlight.add(sending);
        afterSeq = recipient.seq;
      }
    }
  }

  /** One recipient, retried (same message id, so the provider takes it once) while the lane runs. */
  private async sendOne(recipient: RecipientRecord): Promise<Outcome> {
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.send(recipient, attempt);
      if (outcome !== 'retry') return outcome;
      // A repeated send is a send to the provider like any other: it waits for a slot of the schedule.
      if (!(await this.takeSlot())) return 'stop';
    }
  }

  /**
   * Waits for the schedule's next slot (and the end of a provider rate limit) and takes it; false when the lane
   * must stop. Every call to the provider takes one, so the schedule's bounds hold for all of them.
   */
  private async takeSlot(): Promise<boolean> {
    for (;;) {
      if (!(await this.waitUntil(Math.max(this.schedule.nextAt(), this.blockedUntil)))) return false;
      // Another send may have taken the slot meanwhile (a retry beside the lane's loop): then wait again.
      const now = Date.now();
      if (Math.max(this.schedule.nextAt(), this.blockedUntil) <= now) {
        this.schedule.started(now);
        return true;
      }
    }
  }

  /**
   * Sleeps until `at` in short steps, renewing the lease and watching the status; false when the lane must stop.
   * The check runs beside the sends (its answer stops the next ones): a slow check must not hold the schedule.
   */
  private async waitUntil(at: number): Promise<boolean> {
    for (;;) {
      if (!this.running || this.stopping()) return false;
      this.check(false).catch((error: unknown) => {
        this.deps.logger.error({ err: error, lane: this.lane.id }, 'broadcast lane check failed; the lane stops');
        this.running = false;
      });
      const wait = Math.min(at - Date.now(), CHECK_EVERY_MS);
      if (wait <= 0) return true;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  private check(force: boolean): Promise<boolean> {
    if (!force && Date.now() - this.checkedAt < CHECK_EVERY_MS) return Promise.resolve(this.running);
    this.checking ??= this.checkNow().finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async checkNow(): Promise<boolean> {
    const { records, lanes, settings } = this.deps.broadcasts;
    const now = this.deps.now();
    await this.noteChanges();
    if (!(await lanes.renew(this.lane.id, this.owner, now, new Date(now.getTime() + settings.leaseMs)))) return (this.running = false);
    const broadcast = await records.getAnyOrg(this.lane.broadcast_id);
    if (!broadcast) return (this.running = false);
    this.broadcast = broadcast;
    this.route = await this.routeOf(broadcast);
    this.checkedAt = Date.now();
    if (broadcast.status === 'processing' && broadcast.materialized) {
      const sending = await records.transition(broadcast.id, ['processing'], { status: 'sending', updated_at: now });
      if (sending) this.broadcast = sending;
    }
    if (this.broadcast.status === 'sending') return true;
    // Paused while this lane was free: it waits for the resume in `paused` state.
    if (this.broadcast.status === 'paused') await lanes.setState(broadcast.id, ['active'], 'paused', now);
    return (this.running = false);
  }

  /**
   * The lane's number and approved template, resolved once per check; a send that finds them changed at the
   * provider (disconnected, template gone) fails as it would without them. Undefined: each send resolves its own.
   */
  private async routeOf(broadcast: BroadcastRecord): Promise<SendRoute | undefined> {
    const instance = await this.deps.instances.getById(broadcast.org_id, this.lane.instance_id);
    if (!instance) return undefined;
    const wanted = broadcast.cloud_template;
    const template =
      wanted && instance.kind === 'official'
        ? await approvedTemplate(this.deps, broadcast.org_id, instance, wanted.name, wanted.language).catch(() => null)
        : null;
    return { instance, template };
  }

  /** Marks the broadcast's stats stale (see withFreshStats). */
  private async noteChanges(): Promise<void> {
    const at = this.changedAt;
    this.changedAt = null;
    if (at) await this.deps.broadcasts.records.noteRecipientChange(this.lane.broadcast_id, at);
  }

  private async send(recipient: RecipientRecord, attempt: number): Promise<Outcome> {
    const broadcast = this.broadcast;
    let marked = false;
    try {
      const stored = await deliver(this.deps, {
        orgId: broadcast.org_id,
        contact: { id: recipient.contact.id, name: recipient.contact.name, chatapp_jid: recipient.address ?? undefined },
        body: this.body(recipient),
        sender: { type: 'broadcast', id: broadcast.id, name: broadcast.name },
        messageId: recipient.message_id,
        route: this.route,
        origin: { broadcast_id: broadcast.id },
        alsoInTransaction: async (session) => {
          marked = await this.deps.broadcasts.recipients.markSent(recipient.id, this.deps.now(), session);
        },
      });
      if (stored && marked) {
        this.changedAt = this.deps.now();
        countRecipient('sent');
      }
      this.sends++;
      return 'done';
    } catch (error) {
      return this.failed(recipient, error, attempt);
    }
  }

  private async failed(recipient: RecipientRecord, error: unknown, attempt: number): Promise<Outcome> {
    const code = error instanceof AppError ? error.code : 'INTERNAL_ERROR';
    const details = (error instanceof AppError ? error.details : undefined) as Record<string, unknown> | undefined;
    if (code === 'CHATAPP_INSTANCE_RATE_LIMIT') {
      // The number's own limit: nothing starts until the provider's time is up, then this recipient goes again.
      this.blockedUntil = Math.max(this.blockedUntil, Date.now() + Number(details?.retry_after_seconds ?? 1) * 1000);
      this.schedule.restart();
      return 'retry';
    }
    if (code === 'CHANNEL_DISCONNECTED') {
      await this.pauseForDisconnect(error as AppError);
      return 'stop';
    }
    const unconfirmed = ['TEMPLATE_NOT_CONFIRMED', 'SERVICE_UNAVAILABLE', 'UPSTREAM_TIMEOUT', 'INTERNAL_ERROR'].includes(code);
    if (unconfirmed && attempt < UNCONFIRMED_RETRIES) {
      this.deps.logger.warn(
        { err: error, broadcast: recipient.broadcast_id, recipient: recipient.id },
        'broadcast send not confirmed; retrying',
      );
      this.blockedUntil = Math.max(this.blockedUntil, Date.now() + 500 * 2 ** attempt);
      return 'retry';
    }
    const reason = { code: String(details?.provider_code ?? code), message: error instanceof Error ? error.message : String(error) };
    if (await this.deps.broadcasts.recipients.markFailed(recipient.id, reason, this.deps.now())) {
      this.changedAt = this.deps.now();
      countRecipient('failed');
    }
    return 'done';
  }

  private async pauseForDisconnect(error: AppError): Promise<void> {
    const { records, lanes } = this.deps.broadcasts;
    const now = this.deps.now();
    await records.transition(this.broadcast.id, ['sending', 'processing'], {
      status: 'paused',
      error: { code: error.code, message: `${error.message} Resume the broadcast once it is connected.` },
      updated_at: now,
    });
    await lanes.setState(this.broadcast.id, ['active'], 'paused', now);
  }

  /** The #53 body of this recipient's message: the broadcast's text or media, or its template with the recipient's values. */
  private body(recipient: RecipientRecord): SendMessageBody {
    const { message, cloud_template: template } = this.broadcast;
    const common = { contact_id: recipient.contact.id, channel: 'chatapp' as const, instance_id: this.lane.instance_id };
    if (template)
      return {
        ...common,
        type: 'text',
        template_name: template.name,
        template_language: template.language,
        template_components: templateComponents(template, recipient.params),
      };
    return {
      ...common,
      type: (message?.type ?? 'text') as SendMessageBody['type'],
      content: message?.content ?? undefined,
      media_url: message?.media_url ?? undefined,
    };
  }
}

/** Template components in the cloud API's shape: the parameters of each component in the template's order. */
export function templateComponents(template: BroadcastTemplate, params: Record<string, string>): Array<Record<string, unknown>> {
  const groups = new Map<string, string[]>();
  for (const variable of template.variables) {
    const values = groups.get(variable.component) ?? [];
    values.push(params[`${variable.component}.${variable.key}`] ?? variable.fallback ?? '');
    groups.set(variable.component, values);
  }
  return [...groups].map(([component, values]) => {
    const [type, index] = component.split(':');
    return {
      type,
      ...(index !== undefined ? { sub_type: 'url', index: Number(index) } : {}),
      parameters: values.map((text) => ({ type: 'text', text })),
    };
  });
}
