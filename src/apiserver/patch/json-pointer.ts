import { PatchError } from './errors.js';
import { isObject } from '../../api/json.js';

/** RFC 6901: "" is the whole document, "/a~1b/0" is ["a/b", "0"]. */
export function parsePointer(pointer: unknown): string[] {
  if (typeof pointer !== 'string') throw PatchError.unprocessable(`JSON pointer must be a string, got ${typeof pointer}`);
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw PatchError.unprocessable(`JSON pointer ${JSON.stringify(pointer)} must start with "/"`);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => {
      if (/~[^01]|~$/.test(token)) throw PatchError.unprocessable(`JSON pointer ${JSON.stringify(pointer)} has a bad escape`);
      return token.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

/** An array index token: digits without leading zeros (RFC 6901 section 4). */
export function arrayIndex(token: string, length: number, allowEnd: boolean, pointer: string): number {
  if (allowEnd && token === '-') return length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw PatchError.unprocessable(`${pointer}: ${JSON.stringify(token)} is not an array index`);
  const index = Number(token);
  if (index > length || (!allowEnd && index === length)) {
    throw PatchError.unprocessable(`${pointer}: index ${index} is out of bounds (length ${length})`);
  }
  return index;
}

/** The value at `tokens` inside `doc`, or undefined when any step is missing. */
export function lookup(doc: unknown, tokens: string[]): unknown {
  let current = doc;
  for (const token of tokens) {
    if (Array.isArray(current)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      current = current[Number(token)];
    } else if (isObject(current) && Object.hasOwn(current, token)) {
      current = current[token];
    } else {
      return undefined;
    }
  }
  return current;
}
