import {
  InterceptingCall,
  Metadata,
  ResponderBuilder,
  ServerInterceptingCall,
  ServerListenerBuilder,
  status as GrpcStatus,
  type Interceptor,
  type ServerInterceptor,
} from '@grpc/grpc-js';
import { jwtVerify, SignJWT } from 'jose';

/**
 * Service identity (docs/security.md "Service identity"): every gRPC call carries a short-lived token signed with
 * the platform's internal key (SERVICE_TOKEN_SECRET), its audience the called gRPC service, and every server
 * refuses a call without a valid one (UNAUTHENTICATED) before its handler sees the request's org_id or plan.
 */
export const SERVICE_TOKEN_METADATA = 'authorization';

/** A token lives a minute; a caller reuses one for half of that, so a call never leaves with one about to expire. */
export const SERVICE_TOKEN_LIFETIME_S = 60;
const REUSE_FOR_MS = (SERVICE_TOKEN_LIFETIME_S / 2) * 1000;
/** Clocks of two pods may differ a little; never more than this is forgiven. */
const CLOCK_TOLERANCE_S = 5;
const ALGORITHM = 'HS256';

/** The health service stays open: kubelet probes and load balancers hold no key. */
const OPEN_SERVICES = ['/grpc.health.v1.Health/'];

/** Who a process is when it calls another service, and the key it signs with. */
export interface CallerIdentity {
  /** The caller's name (`gateway`, `messaging`, …): the tokens' issuer, logged by the callee. */
  name: string;
  secret: string;
}

/** The keys a server accepts: the current one, then those still accepted during a rotation. */
export interface IdentityKeys {
  secret: string;
  oldSecrets?: string[];
}

interface IdentityConfig {
  SERVICE_TOKEN_SECRET: string;
  SERVICE_TOKEN_OLD_SECRETS?: string | undefined;
}

/** The environment's keys (config.ts serviceIdentityEnv: SERVICE_TOKEN_SECRET, SERVICE_TOKEN_OLD_SECRETS). */
export function identityKeys(config: IdentityConfig): IdentityKeys {
  const oldSecrets = (config.SERVICE_TOKEN_OLD_SECRETS ?? '').split(',').filter(Boolean);
  return { secret: config.SERVICE_TOKEN_SECRET, oldSecrets };
}

/** The process `name` as a caller, signing with the environment's current key. */
export const callerIdentity = (name: string, config: IdentityConfig): CallerIdentity => ({ name, secret: config.SERVICE_TOKEN_SECRET });

const encodeKey = (secret: string) => new TextEncoder().encode(secret);

/** Signs (and reuses for REUSE_FOR_MS) one token per audience. */
export function tokenSource(identity: CallerIdentity, now: () => number = Date.now): (audience: string) => Promise<string> {
  const key = encodeKey(identity.secret);
  const cache = new Map<string, { token: Promise<string>; until: number }>();
  return (audience) => {
    const cached = cache.get(audience);
    if (cached && cached.until > now()) return cached.token;
    const issuedAt = Math.floor(now() / 1000);
    const token = new SignJWT({})
      .setProtectedHeader({ alg: ALGORITHM })
      .setIssuer(identity.name)
      .setAudience(audience)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + SERVICE_TOKEN_LIFETIME_S)
      .sign(key);
    cache.set(audience, { token, until: now() + REUSE_FOR_MS });
    return token;
  };
}

/** "/crm.v1.ContactService/GetContact" → "crm.v1.ContactService": a token's audience. */
export const serviceOfPath = (path: string): string => path.split('/')[1] ?? '';

/** Adds the caller's token to every call of a client (the audience is the called service). */
export function identityClientInterceptor(identity: CallerIdentity): Interceptor {
  const tokenFor = tokenSource(identity);
  return (options, nextCall) =>
    new InterceptingCall(nextCall(options), {
      start(metadata, listener, next) {
        tokenFor(serviceOfPath(options.method_definition.path)).then(
          (token) => {
            metadata.set(SERVICE_TOKEN_METADATA, `Bearer ${token}`);
            next(metadata, listener);
          },
          // Signing with a valid key does not fail; if it ever does, the call leaves without a token and is refused.
          () => next(metadata, listener),
        );
      },
    });
}

/**
 * Why a call's token is refused, or undefined when it is valid for `service`: signed with one of the keys,
 * audience `service`, not expired, issued at most SERVICE_TOKEN_LIFETIME_S ago (so a token made to live longer is
 * refused all the same). A valid token answers until when it stays valid (`until`, epoch ms).
 */
export async function refuseToken(
  metadata: Metadata,
  service: string,
  keys: IdentityKeys,
): Promise<{ reason: string } | { reason: undefined; until: number }> {
  const token = tokenOf(metadata);
  if (!token) return { reason: 'missing service token' };
  for (const secret of [keys.secret, ...(keys.oldSecrets ?? [])]) {
    try {
      const { payload } = await jwtVerify(token, encodeKey(secret), {
        algorithms: [ALGORITHM],
        audience: service,
        clockTolerance: CLOCK_TOLERANCE_S,
        maxTokenAge: SERVICE_TOKEN_LIFETIME_S + CLOCK_TOLERANCE_S,
        requiredClaims: ['iss', 'iat', 'exp'],
      });
      // The checks jwtVerify makes of time: expiry (with the tolerance) and age (maxTokenAge, with the tolerance).
      const until = Math.min(payload.exp! + CLOCK_TOLERANCE_S, payload.iat! + SERVICE_TOKEN_LIFETIME_S + 2 * CLOCK_TOLERANCE_S);
      return { reason: undefined, until: until * 1000 };
    } catch (error) {
      // A bad signature may be a token of the other key (a rotation); any other failure is final.
      const code = (error as { code?: string }).code;
      if (code === 'ERR_JWT_EXPIRED') return { reason: 'expired service token' };
      if (code !== 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') return { reason: 'invalid service token' };
    }
  }
  return { reason: 'invalid service token' };
}

function tokenOf(metadata: Metadata): string {
  const header = String(metadata.get(SERVICE_TOKEN_METADATA)[0] ?? '');
  return header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
}

/** Verified tokens kept at most; beyond it the expired ones go (a caller holds one token per audience at a time). */
const VERIFIED_KEPT = 256;

/**
 * refuseToken, remembering the tokens it found valid until they stop being so: a caller reuses one token for 30 s,
 * and verifying its signature on every call was ~2 % of the CRM's CPU per request (profiled).
 */
export function tokenChecker(keys: IdentityKeys, now: () => number = Date.now) {
  const verified = new Map<string, number>();
  return async (metadata: Metadata, service: string): Promise<string | undefined> => {
    const key = `${service} ${tokenOf(metadata)}`;
    const until = verified.get(key);
    if (until !== undefined && now() < until) return undefined;
    const outcome = await refuseToken(metadata, service, keys);
    if (outcome.reason !== undefined) return outcome.reason;
    if (verified.size >= VERIFIED_KEPT) for (const [stale, end] of verified) if (end <= now()) verified.delete(stale);
    if (verified.size < VERIFIED_KEPT) verified.set(key, outcome.until);
    return undefined;
  };
}

/**
 * Refuses, UNAUTHENTICATED, every call but health checks that does not carry a valid token for the called service:
 * its request is never read, so an org_id or plan from an unauthenticated caller reaches no handler.
 */
export function identityServerInterceptor(keys: IdentityKeys): ServerInterceptor {
  const check = tokenChecker(keys);
  return (methodDescriptor, call) => {
    if (OPEN_SERVICES.some((prefix) => methodDescriptor.path.startsWith(prefix))) return new ServerInterceptingCall(call);
    const service = serviceOfPath(methodDescriptor.path);
    return new ServerInterceptingCall(
      call,
      new ResponderBuilder()
        .withStart((next) =>
          next(
            new ServerListenerBuilder()
              .withOnReceiveMetadata((metadata, nextMetadata) => {
                void check(metadata, service).then((reason) =>
                  reason
                    ? call.sendStatus({ code: GrpcStatus.UNAUTHENTICATED, details: reason, metadata: new Metadata() })
                    : nextMetadata(metadata),
                );
              })
              .build(),
          ),
        )
        .build(),
    );
  };
}
