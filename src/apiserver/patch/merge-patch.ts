import { clone, getOwn, isObject, setOwn } from '../../api/json.js';

/**
 * RFC 7386 JSON merge patch: objects merge recursively, `null` deletes a key, anything else
 * (arrays included) replaces. Inputs are not mutated.
 */
export function mergePatch(original: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const result: Record<string, unknown> = isObject(original) ? { ...original } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else setOwn(result, key, mergePatch(getOwn(result, key), value));
  }
  return result;
}
