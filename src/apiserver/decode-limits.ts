// Limits on what a body may decode to, checked before anything walks the decoded value.
// JSON text is scanned for its nesting depth before it is parsed. A YAML document is
// checked after js-yaml has built it, where an alias is the same JS object met again:
// the walk counts what expanding the aliases would cost, with go-yaml's rule (the one
// kube-apiserver's sigs.k8s.io/yaml applies), and stops as soon as a limit is passed.
import { badRequest, tooLarge } from './errors.js';
import { maxBodyBytes, maxNestingDepth } from './limits.js';

export const jsonTooDeepMessage = `exceeded max depth of ${maxNestingDepth}`;

/** True when objects and arrays in JSON `text` nest deeper than maxNestingDepth. */
export function jsonTooDeep(text: string): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c /* \ */) i++;
    } else if (ch === 0x7b /* { */ || ch === 0x5b /* [ */) {
      if (++depth > maxNestingDepth) return true;
    } else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) {
      depth--;
    }
  }
  return false;
}

// go-yaml's allowedAliasRatio: up to 400,000 decode steps 99% may come from aliases, from
// 4,000,000 only 10%, linear in between; the rule applies past 1,000 steps and 100 aliases.
const ratioRangeLow = 400_000;
const ratioRangeHigh = 4_000_000;

function allowedAliasRatio(decodes: number): number {
  if (decodes <= ratioRangeLow) return 0.99;
  if (decodes >= ratioRangeHigh) return 0.1;
  return 0.99 - 0.89 * ((decodes - ratioRangeLow) / (ratioRangeHigh - ratioRangeLow));
}

const yamlError = (message: string) => badRequest(`error converting YAML to JSON: yaml: ${message}`);

/**
 * Throws 400 when the YAML-decoded `value` aliases excessively, contains itself or nests
 * deeper than maxNestingDepth once its aliases are expanded, and 413 when its expansion is
 * larger than maxBodyBytes as JSON.
 */
export function checkYAMLExpansion(value: unknown): void {
  let decodes = 1; // the document node
  let aliases = 0;
  let bytes = 0;
  const seen = new Set<object>();
  const ancestors = new Set<object>();

  const step = (inAlias: boolean, size: number) => {
    decodes++;
    if (inAlias) aliases++;
    if (aliases > 100 && decodes > 1000 && aliases / decodes > allowedAliasRatio(decodes)) throw yamlError('document contains excessive aliasing');
    bytes += size;
    if (bytes > maxBodyBytes) throw tooLarge(`Request entity too large: the body decodes to more than ${maxBodyBytes} bytes`);
  };

  const visit = (v: unknown, depth: number, inAlias: boolean): void => {
    if (v === null || typeof v !== 'object') {
      step(inAlias, scalarSize(v));
      return;
    }
    if (ancestors.has(v)) throw yamlError('anchor value contains itself');
    if (seen.has(v)) {
      // An alias: one step for the alias node, then its anchor's value again, all aliased.
      step(inAlias, 0);
      inAlias = true;
    }
    seen.add(v);
    if (depth + 1 > maxNestingDepth) throw yamlError(jsonTooDeepMessage);
    ancestors.add(v);
    if (Array.isArray(v)) {
      step(inAlias, 2 + Math.max(0, v.length - 1));
      for (const item of v) visit(item, depth + 1, inAlias);
    } else {
      const entries = Object.entries(v);
      step(inAlias, 2 + Math.max(0, entries.length - 1));
      for (const [k, item] of entries) {
        step(inAlias, Buffer.byteLength(k) + 3);
        visit(item, depth + 1, inAlias);
      }
    }
    ancestors.delete(v);
  };

  visit(value, 0, false);
}

function scalarSize(v: unknown): number {
  if (typeof v === 'string') return Buffer.byteLength(v) + 2;
  if (v === null || v === undefined) return 4;
  return String(v).length;
}
