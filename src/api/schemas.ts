// Registers every versioned schema (importing this module is enough) and finds the schema a
// group/version/kind is served with.
import './meta/v1/schema.js';
import './core/v1/schema.js';
import './apps/v1/schema.js';
import './apps/v1beta1/schema.js';
import './autoscaling/v1/schema.js';
import './autoscaling/v2/schema.js';
import './discovery/v1/schema.js';
import './coordination/v1/schema.js';
import './events/v1/schema.js';
import './rbac/schema.js';
import './certificates/v1/schema.js';
import './authentication/v1/schema.js';
import './authorization/v1/schema.js';
import './policy/v1/schema.js';
import './scheduling/v1/schema.js';
import './storage/v1/schema.js';
import './batch/v1/schema.js';
import './apiextensions/v1/schema.js';
import './admissionregistration/v1/schema.js';
import './networking/v1/schema.js';
import './policynetworking/v1alpha1/schema.js';
import { allTypes, ref, typesGeneration, type RefSchema } from './schema.js';
import { META } from './meta/v1/names.js';

/** Kinds every group version serves with the shared meta/v1 schema. */
const SHARED_META_KINDS = new Set(['Status', 'DeleteOptions', 'WatchEvent']);

let byGVK: Map<string, string> | undefined;
let indexedAt = -1;

const key = (group: string, version: string, kind: string): string => `${group}/${version}/${kind}`;

function index(): Map<string, string> {
  const m = new Map<string, string>();
  for (const [name, schema] of allTypes()) {
    if (schema.kind !== 'object' || !schema.gvk) continue;
    for (const g of schema.gvk) m.set(key(g.group, g.version, g.kind), name);
  }
  return m;
}

/** The registered schema for a kind, or undefined when it has none. */
export function schemaFor(group: string, version: string, kind: string): RefSchema | undefined {
  if (SHARED_META_KINDS.has(kind)) return ref(`${META}.${kind}`);
  if (!byGVK || indexedAt !== typesGeneration()) {
    byGVK = index();
    indexedAt = typesGeneration();
  }
  const name = byGVK.get(key(group, version, kind));
  return name === undefined ? undefined : ref(name);
}
