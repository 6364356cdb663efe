// OpenAPI v3 documents for the served group versions: the `/openapi/v3` index and one
// document per group version. kubectl depends on them: `apply`/`create` (default
// --validate=strict) check that a kind's PATCH operation takes `fieldValidation` before
// leaving validation to the server, and `explain` reads component schemas by their
// `x-kubernetes-group-version-kind`.
import { createHash } from 'node:crypto';
import './schemas.js';
import { componentSchemas, type JSONObject } from './openapi/components.js';
import { resourcePaths, type ServedResource } from './openapi/paths.js';

export type { ServedResource } from './openapi/paths.js';
export { PATCH_CONTENT_TYPES } from './openapi/paths.js';

export interface OpenAPIIndex {
  paths: Record<string, { serverRelativeURL: string }>;
}

/** The index key of a group version: `api/v1` or `apis/<group>/<version>`. */
export function groupVersionPath(group: string, version: string): string {
  return group ? `apis/${group}/${version}` : `api/${version}`;
}

// Documents are rebuilt only when a group version's served set changes. One entry per group
// version: a server with a thousand custom resource groups keeps a thousand documents, and
// a change to one group rebuilds that group's alone.
const cache = new Map<string, { key: string; doc: JSONObject }>();

function build(group: string, version: string, served: ServedResource[]): { doc: JSONObject } {
  const mine = served.filter((r) => r.group === group && r.version === version)
    .sort((a, b) => a.resource.localeCompare(b.resource));
  const gv = groupVersionPath(group, version);
  const key = JSON.stringify(mine);
  const hit = cache.get(gv);
  if (hit?.key === key) return hit;
  const paths: Record<string, JSONObject> = {};
  const schemaNames = new Set<string>();
  for (const r of mine) {
    const rp = resourcePaths(r);
    Object.assign(paths, rp.paths);
    for (const n of rp.schemas) schemaNames.add(n);
  }
  const doc: JSONObject = {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version: 'unversioned' },
    paths: Object.fromEntries(Object.keys(paths).sort().map((p) => [p, paths[p]])),
    components: {
      schemas: componentSchemas(schemaNames),
      securitySchemes: { BearerToken: { type: 'apiKey', description: 'Bearer token authentication', name: 'authorization', in: 'header' } },
    },
    security: [{ BearerToken: [] }],
  };
  const entry = { key, doc };
  cache.set(gv, entry);
  return entry;
}

// The JSON of each served entry (entries are replaced, never changed, when what they serve
// changes) and the last hash of each group version's entries.
const entryJSON = new WeakMap<ServedResource, string>();
const hashes = new Map<string, { key: string; hash: string }>();

function entriesHash(path: string, served: ServedResource[]): string {
  const key = served.map((r) => {
    let j = entryJSON.get(r);
    if (j === undefined) entryJSON.set(r, j = JSON.stringify(r));
    return j;
  }).sort().join('\n');
  const hit = hashes.get(path);
  if (hit?.key === key) return hit.hash;
  const hash = createHash('sha512').update(key).digest('hex').toUpperCase();
  hashes.set(path, { key, hash });
  return hash;
}

/**
 * The body of `GET /openapi/v3`: one entry per served group version whose URL carries a
 * hash of that document's content, so clients may cache documents by URL. `baseHash`
 * (e.g. the server build) is mixed in so a new server invalidates caches even when a
 * document happens to render the same.
 */
export function openAPIIndex(served: ServedResource[], baseHash = ''): OpenAPIIndex {
  const gvs = new Map<string, { group: string; version: string; served: ServedResource[] }>();
  for (const r of served) {
    const path = groupVersionPath(r.group, r.version);
    const gv = gvs.get(path) ?? { group: r.group, version: r.version, served: [] };
    gv.served.push(r);
    gvs.set(path, gv);
  }
  const paths: OpenAPIIndex['paths'] = {};
  // A document is a function of its served entries (built-in schemas are fixed; a custom
  // resource's entries carry its CRD's generation), so the index hashes the entries instead
  // of rendering every document: with a thousand CRDs it stays cheap, documents are built
  // when fetched.
  for (const [path, gv] of [...gvs].sort(([a], [b]) => a.localeCompare(b))) {
    const hash = entriesHash(path, gv.served);
    const h = baseHash ? createHash('sha512').update(baseHash).update(hash).digest('hex').toUpperCase() : hash;
    paths[path] = { serverRelativeURL: `/openapi/v3/${path}?hash=${h}` };
  }
  // Group versions no longer served (a deleted CRD's) leave the cache.
  for (const path of cache.keys()) if (!gvs.has(path)) cache.delete(path);
  for (const path of hashes.keys()) if (!gvs.has(path)) hashes.delete(path);
  return { paths };
}

/** The document served at `/openapi/v3/api/v1` or `/openapi/v3/apis/<group>/<version>`. */
export function openAPIDocument(group: string, version: string, served: ServedResource[]): JSONObject {
  return build(group, version, served).doc;
}
