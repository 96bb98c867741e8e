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
 * refused all the same).
 */
export async function refuseToken(metadata: Metadata, service: string, keys: IdentityKeys): Promise<string | undefined> {
  const header = String(metadata.get(SERVICE_TOKEN_METADATA)[0] ?? '');
  const token = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : '';
  if (!token) return 'missing service token';
  for (const secret of [keys.secret, ...(keys.oldSecrets ?? [])]) {
    try {
      await jwtVerify(token, encodeKey(secret), {
        algorithms: [ALGORITHM],
        audience: service,
        clockTolerance: CLOCK_TOLERANCE_S,
        maxTokenAge: SERVICE_TOKEN_LIFETIME_S + CLOCK_TOLERANCE_S,
        requiredClaims: ['iss', 'iat', 'exp'],
      });
      return undefined;
    } catch (error) {
      // A bad signature may be a token of the other key (a rotation); any other failure is final.
      const code = (error as { code?: string }).code;
      if (code === 'ERR_JWT_EXPIRED') return 'expired service token';
      if (code !== 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED') return 'invalid service token';
    }
  }
  return 'invalid service token';
}

/**
 * Refuses, UNAUTHENTICATED, every call but health checks that does not carry a valid token for the called service:
 * its request is never read, so an org_id or plan from an unauthenticated caller reaches no handler.
 */
export function identityServerInterceptor(keys: IdentityKeys): ServerInterceptor {
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
                void refuseToken(metadata, service, keys).then((reason) =>
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
