// Node label keys and their values as small integers: each NodeInfo carries, per key id,
// the id of its value (its topology domain), so the plugins that count per domain (topology
// spread, inter-pod affinity) read an array slot per node instead of a label string and a
// Map entry. Ids are handed out for the process's lifetime and never reused, as zone ids
// are: they grow with the distinct label keys and values ever seen on nodes.
const keyIds = new Map<string, number>();
const valueIds: Map<string, number>[] = [];

/** The id of a node label key, made on first use. */
export function topologyKeyId(key: string): number {
  let id = keyIds.get(key);
  if (id === undefined) {
    keyIds.set(key, (id = valueIds.length));
    valueIds.push(new Map());
  }
  return id;
}

/** The id of `value` under key `keyId`, made on first use: a domain of that key. */
export function domainId(keyId: number, value: string): number {
  const m = valueIds[keyId];
  let id = m.get(value);
  if (id === undefined) m.set(value, (id = m.size));
  return id;
}

/** How many domain ids key `keyId` has handed out: arrays indexed by domain id have this length. */
export function domainCount(keyId: number): number {
  return valueIds[keyId].size;
}

/** Per key id, the domain id of each of `labels` (-1 for keys the labels lack). */
export function domainsOf(labels: Record<string, string>): Int32Array {
  const ids: [number, number][] = [];
  for (const k in labels) { const kid = topologyKeyId(k); ids.push([kid, domainId(kid, labels[k])]); }
  const out = new Int32Array(valueIds.length).fill(-1);
  for (const [k, v] of ids) out[k] = v;
  return out;
}

/** The domain id of a node with `domains` (a domainsOf result) under key `keyId`, or -1. */
export function domainIn(domains: Int32Array, keyId: number): number {
  return keyId < domains.length ? domains[keyId] : -1;
}
