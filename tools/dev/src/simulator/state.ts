import type { InstanceKind } from '@crm/shared/schemas';

export interface SimTemplate {
  id: string;
  name: string;
  language: string;
  category: string;
  status: string;
  components: unknown[];
}

/**
 * How the next send fails: held past the sender's timeout, a 5xx, a refusal with a provider code, or accepted and
 * then reported `failed` by a status callback with that code (a delivery the provider gives up on).
 */
export type FailMode =
  | { mode: 'timeout' }
  | { mode: 'server_error' }
  | { mode: 'error'; code: number; message: string }
  | { mode: 'failed_status'; code: number; message: string };

/** One number or page as the provider sees it. */
export interface SimNumber {
  kind: InstanceKind;
  ref: string;
  connected: boolean;
  /** Reported by the official account endpoint; false makes every accepted send fail later with 131042. */
  payment_method: boolean;
  /** The account reports a payment method, yet deliveries fail with 131042 (e.g. a declined card). */
  late_billing_failure: boolean;
  rate_limit: { limit: number; window_ms: number } | null;
  recent_sends: number[];
  fail_next: FailMode[];
  templates: SimTemplate[];
}

export interface SimSend {
  id: string;
  kind: InstanceKind;
  ref: string;
  to: string;
  body: unknown;
  at: string;
}

/** The simulator's whole memory: numbers by kind and handle, the sends it accepted, the last handle used. */
export class SimState {
  readonly numbers = new Map<string, SimNumber>();
  readonly sent: SimSend[] = [];
  /** First answers to sends by `<kind>:<ref>:<idempotency key>`, and how many repeats they answered. */
  readonly accepted = new Map<string, { status: number; body: unknown; headers?: Record<string, string> }>();
  replayed = 0;
  private readonly last = new Map<InstanceKind, string>();

  number(kind: InstanceKind, ref: string): SimNumber {
    const key = `${kind}:${ref}`;
    let state = this.numbers.get(key);
    if (!state) {
      state = {
        kind,
        ref,
        connected: true,
        payment_method: true,
        late_billing_failure: false,
        rate_limit: null,
        recent_sends: [],
        fail_next: [],
        templates: [],
      };
      this.numbers.set(key, state);
    }
    this.last.set(kind, ref);
    return state;
  }

  /** The handle used last for a kind: lets `sim inbound` run without `--to`. */
  lastRef(kind: InstanceKind): string | undefined {
    return this.last.get(kind);
  }

  /** Milliseconds until a send is allowed again, or 0. */
  rateLimitWait(state: SimNumber, now = Date.now()): number {
    if (!state.rate_limit) return 0;
    const since = now - state.rate_limit.window_ms;
    state.recent_sends = state.recent_sends.filter((at) => at > since);
    if (state.recent_sends.length < state.rate_limit.limit) return 0;
    return (state.recent_sends[0] ?? now) + state.rate_limit.window_ms - now;
  }
}
