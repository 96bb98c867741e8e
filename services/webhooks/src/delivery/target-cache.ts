import {
  checkTargetUrl,
  defaultResolver,
  resolveVettedAddress,
  type AllowList,
  type GuardFailure,
  type ResolvedAddress,
  type Resolver,
  type TargetUrlOk,
  type VettedAddress,
} from './address-guard';

/** How long a DNS answer is reused: every attempt is still vetted, against an answer at most this old. */
const DNS_TTL_MS = 5_000;
const MAX_ENTRIES = 10_000;

/** A Map that forgets its oldest entry beyond MAX_ENTRIES. */
function bounded<K, V>(map: Map<K, V>, key: K, value: V): V {
  map.set(key, value);
  if (map.size > MAX_ENTRIES) map.delete(map.keys().next().value as K);
  return value;
}

const checked = new WeakMap<AllowList, Map<string, TargetUrlOk | GuardFailure>>();

/**
 * checkTargetUrl, remembered per URL and allow-list: the check is pure, and a busy subscription's URL would
 * otherwise be parsed and checked again for every delivery.
 */
export function checkTargetUrlCached(url: string, allowList: AllowList): TargetUrlOk | GuardFailure {
  let byUrl = checked.get(allowList);
  if (!byUrl) checked.set(allowList, (byUrl = new Map()));
  return byUrl.get(url) ?? bounded(byUrl, url, checkTargetUrl(url, allowList));
}

const answers = new Map<string, { at: number; addresses: Promise<readonly ResolvedAddress[]> }>();

/**
 * The system resolver, with answers reused for DNS_TTL_MS: a lookup per delivery would queue a thousand
 * getaddrinfo calls a second on libuv's four threads. The SSRF rules still vet every attempt against the answer
 * (resolveVettedAddress), and the connection goes to the vetted address; a failed lookup is not kept.
 */
export const cachedResolver: Resolver = (hostname) => {
  const now = Date.now();
  const known = answers.get(hostname);
  if (known && now - known.at < DNS_TTL_MS) return known.addresses;
  const addresses = defaultResolver(hostname);
  bounded(answers, hostname, { at: now, addresses });
  addresses.catch(() => answers.delete(hostname));
  return addresses;
};

type Verdict = VettedAddress | GuardFailure;
type Answer = Promise<readonly ResolvedAddress[]>;
/** The key of a verdict made without DNS: an IP literal's, or a refused host name's (the allow-list decides). */
const NO_ANSWER: Answer = Promise.resolve([]);
const verdicts = new WeakMap<AllowList, Map<string, { answer: Answer; verdict: Verdict }>>();

/** The cached DNS answer for the host if still fresh, without asking. */
function freshAnswer(hostname: string): Answer | undefined {
  const known = answers.get(hostname);
  return known && Date.now() - known.at < DNS_TTL_MS ? known.addresses : undefined;
}

/**
 * resolveVettedAddress over the cached DNS answers, its verdict remembered for as long as the answer it was made
 * on is fresh (the same answer always gets the same verdict): a busy subscription's delivery then gets it without
 * a promise or a parse. Answers the verdict itself when known, else a promise of it. A host that could not be
 * resolved is not remembered (its answer is not either).
 */
export function vettedAddressCached(hostname: string, allowList: AllowList): Verdict | Promise<Verdict> {
  let byHost = verdicts.get(allowList);
  if (!byHost) verdicts.set(allowList, (byHost = new Map()));
  const known = byHost.get(hostname);
  if (known && known.answer === (freshAnswer(hostname) ?? NO_ANSWER)) return known.verdict;
  let answer = NO_ANSWER;
  const asked: Resolver = (host) => (answer = cachedResolver(host));
  return resolveVettedAddress(hostname, allowList, asked).then((verdict) => {
    if (verdict.ok || verdict.code !== 'unresolvable') bounded(byHost, hostname, { answer, verdict });
    return verdict;
  });
}
