import { PatchError } from './errors.js';
import { clone, deepEqual, describe, isObject, nestingDepth, setOwn } from '../../api/json.js';
import { arrayIndex, lookup, parsePointer } from './json-pointer.js';
import { maxJSONPatchCopyBytes, maxJSONPatchOperations, maxNestingDepth } from '../limits.js';

type Container = Record<string, unknown> | unknown[];

/** What one patch has spent so far: `copy` may not add more than maxJSONPatchCopyBytes. */
interface Budget {
  copied: number;
}

/**
 * RFC 6902 JSON patch. A body that is not an array of objects is a malformed request (400);
 * more than maxJSONPatchOperations operations are 413; an operation that cannot be applied
 * (unknown op, missing path, failed `test`, copies past maxJSONPatchCopyBytes, nesting
 * past maxNestingDepth) is 422, as Kubernetes answers. The operations apply in order to a
 * copy; the input is not mutated.
 */
export function jsonPatch(original: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations)) throw PatchError.badRequest('a JSON patch must be a JSON array of operations');
  operations.forEach((op, i) => {
    if (!isObject(op)) throw PatchError.badRequest(`JSON patch operation ${i} is not an object`);
  });
  if (operations.length > maxJSONPatchOperations) {
    throw PatchError.tooLarge(`The allowed maximum operations in a JSON patch is ${maxJSONPatchOperations}, got ${operations.length}`);
  }
  let doc = clone(original);
  const budget: Budget = { copied: 0 };
  for (const op of operations as Record<string, unknown>[]) doc = applyOperation(doc, op, budget);
  return doc;
}

function applyOperation(doc: unknown, op: Record<string, unknown>, budget: Budget): unknown {
  const path = parsePointer(op.path);
  const pointer = op.path as string;
  switch (op.op) {
    case 'add':
      return add(doc, path, pointer, requireValue(op));
    case 'remove':
      return remove(doc, path, pointer).doc;
    case 'replace': {
      const value = requireValue(op);
      const { doc: without } = remove(doc, path, pointer);
      return add(without, path, pointer, value);
    }
    case 'move': {
      const from = parsePointer(op.from);
      if (isProperPrefix(from, path)) throw PatchError.unprocessable(`cannot move ${String(op.from)} into its own child ${pointer}`);
      const { doc: without, removed } = remove(doc, from, op.from as string);
      return add(without, path, pointer, removed);
    }
    case 'copy': {
      const from = parsePointer(op.from);
      const value = lookup(doc, from);
      if (value === undefined) throw PatchError.unprocessable(`copy from ${String(op.from)}: path does not exist`);
      checkDepth(path, value, pointer);
      budget.copied += JSON.stringify(value).length;
      if (budget.copied > maxJSONPatchCopyBytes) {
        throw PatchError.unprocessable(`Unable to complete the copy, the accumulated size increase of copy is ${budget.copied}, exceeding the limit ${maxJSONPatchCopyBytes}`);
      }
      return add(doc, path, pointer, clone(value));
    }
    case 'test': {
      const expected = requireValue(op);
      const actual = lookup(doc, path);
      if (!deepEqual(actual, expected)) {
        throw PatchError.unprocessable(`test failed at ${pointer}: expected ${describe(expected)}, found ${actual === undefined ? 'nothing' : describe(actual)}`);
      }
      return doc;
    }
    default:
      throw PatchError.unprocessable(`unknown JSON patch operation ${describe(op.op)}`);
  }
}

function requireValue(op: Record<string, unknown>): unknown {
  if (!Object.hasOwn(op, 'value')) throw PatchError.unprocessable(`JSON patch operation "${String(op.op)}" at ${String(op.path)} has no value`);
  return clone(op.value);
}

function isProperPrefix(prefix: string[], path: string[]): boolean {
  return prefix.length < path.length && prefix.every((t, i) => t === path[i]);
}

function parentOf(doc: unknown, path: string[], pointer: string): Container {
  const parent = lookup(doc, path.slice(0, -1));
  if (Array.isArray(parent) || isObject(parent)) return parent;
  throw PatchError.unprocessable(`${pointer}: parent path does not exist`);
}

/** The document nests no deeper than maxNestingDepth before an operation; keep it so. */
function checkDepth(path: string[], value: unknown, pointer: string): void {
  if (path.length + nestingDepth(value, maxNestingDepth) > maxNestingDepth) {
    throw PatchError.unprocessable(`${pointer}: exceeded max depth of ${maxNestingDepth}`);
  }
}

function add(doc: unknown, path: string[], pointer: string, value: unknown): unknown {
  checkDepth(path, value, pointer);
  if (path.length === 0) return value;
  const parent = parentOf(doc, path, pointer);
  const token = path[path.length - 1]!;
  if (Array.isArray(parent)) parent.splice(arrayIndex(token, parent.length, true, pointer), 0, value);
  else setOwn(parent, token, value);
  return doc;
}

function remove(doc: unknown, path: string[], pointer: string): { doc: unknown; removed: unknown } {
  if (path.length === 0) {
    if (doc === undefined) throw PatchError.unprocessable('cannot remove the document: it does not exist');
    return { doc: undefined, removed: doc };
  }
  const parent = parentOf(doc, path, pointer);
  const token = path[path.length - 1]!;
  if (Array.isArray(parent)) {
    const [removed] = parent.splice(arrayIndex(token, parent.length, false, pointer), 1);
    return { doc, removed };
  }
  if (!Object.hasOwn(parent, token)) throw PatchError.unprocessable(`${pointer}: path does not exist`);
  const removed = parent[token];
  delete parent[token];
  return { doc, removed };
}
