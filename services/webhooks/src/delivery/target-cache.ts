import {
  checkTargetUrl,
  defaultResolver,
  type AllowList,
  type GuardFailure,
  type ResolvedAddress,
  type Resolver,
  type TargetUrlOk,
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
