// Patch engines for PATCH requests. Pure functions on JSON values: no I/O, inputs never
// mutated, the result shares no structure with the inputs.
import type { Schema } from '../../api/schema.js';
import { jsonPatch } from './json-patch.js';
import { mergePatch } from './merge-patch.js';
import { strategicMergePatch } from './strategic-merge-patch.js';
import { PatchError } from './errors.js';
import { deepCopy } from '../../util/json.js';

export { PatchError } from './errors.js';

export type PatchKind = 'json' | 'merge' | 'strategic';

const contentTypes: Record<string, PatchKind> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
};

/**
 * The patch kind for a PATCH request's Content-Type (parameters such as charset ignored), or
 * undefined for anything else. `application/apply-patch+yaml` is not a patch kind: it goes
 * to the field manager's apply.
 */
export function patchKindFor(contentType: string): PatchKind | undefined {
  return contentTypes[contentType.split(';')[0]!.trim().toLowerCase()];
}

/**
 * Applies a parsed patch body to the original object.
 *
 * - `json`: RFC 6902 operations. `schema` is not used.
 * - `merge`: RFC 7386. The body must be a JSON object.
 * - `strategic`: Kubernetes strategic merge patch driven by `schema` (merge keys, patch
 *   strategies); the body must be a JSON object.
 *
 * Throws PatchError: code 400 for a malformed patch, 422 for one that does not apply.
 * The result may be any JSON value for `json` (a patch can replace the whole document); the
 * caller validates that it is still an object of the right kind.
 */
export function applyPatch(kind: PatchKind, original: unknown, patchBody: unknown, schema: Schema | undefined): unknown {
  switch (kind) {
    case 'json':
      return jsonPatch(original, patchBody);
    case 'merge':
      if (typeof patchBody !== 'object' || patchBody === null || Array.isArray(patchBody)) {
        throw PatchError.badRequest('a merge patch must be a JSON object');
      }
      return deepCopy(mergePatch(original, patchBody));
    case 'strategic':
      return deepCopy(strategicMergePatch(original, patchBody, schema));
  }
}
