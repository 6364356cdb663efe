// Label selectors: the string form clients send (`app=web,tier!=db,env in (a,b),!legacy`)
// and the structured LabelSelector of specs (matchLabels/matchExpressions). Both compile to
// one list of requirements, so matching has a single implementation.

export type Operator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';

export interface Requirement {
  key: string;
  operator: Operator;
  values: string[];
}

export type Selector = Requirement[];

export class SelectorParseError extends Error {}

export function matches(selector: Selector, labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  return selector.every((r) => {
    const has = Object.prototype.hasOwnProperty.call(l, r.key);
    const v = l[r.key];
    switch (r.operator) {
      case 'In': return has && r.values.includes(v);
      case 'NotIn': return !has || !r.values.includes(v);
      case 'Exists': return has;
      case 'DoesNotExist': return !has;
      case 'Gt': return has && Number(v) > Number(r.values[0]);
      case 'Lt': return has && Number(v) < Number(r.values[0]);
    }
  });
}

const keyPattern = /^[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?$/;
const valuePattern = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function checkKey(key: string): string {
  if (!keyPattern.test(key)) throw new SelectorParseError(`invalid label key "${key}"`);
  return key;
}

function checkValue(value: string): string {
  if (value.length > 63 || !valuePattern.test(value)) throw new SelectorParseError(`invalid label value: "${value}"`);
  return value;
}

/** Splits on commas that are not inside parentheses. */
function splitTerms(s: string): string[] {
  const out: string[] = [];
  let depth = 0, start = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')') depth--;
    else if (s[i] === ',' && depth === 0) { out.push(s.slice(start, i)); start = i + 1; }
  }
  out.push(s.slice(start));
  return out.map((t) => t.trim());
}

export function parseSelector(input: string): Selector {
  const s = input.trim();
  if (!s) return [];
  return splitTerms(s).map(parseTerm);
}

function parseTerm(term: string): Requirement {
  if (!term) throw new SelectorParseError('found empty term in selector');
  let m: RegExpExecArray | null;
  if ((m = /^!\s*(\S+)$/.exec(term))) return { key: checkKey(m[1]), operator: 'DoesNotExist', values: [] };
  if ((m = /^(\S+?)\s+(in|notin)\s*\((.*)\)$/.exec(term))) {
    const values = m[3].split(',').map((v) => v.trim()).filter((v, _i, all) => v !== '' || all.length === 1);
    values.forEach(checkValue);
    return { key: checkKey(m[1]), operator: m[2] === 'in' ? 'In' : 'NotIn', values };
  }
  if ((m = /^([^=!<>\s]+)\s*(==|=|!=|>|<)\s*(.*)$/.exec(term))) {
    const key = checkKey(m[1]);
    const value = m[3].trim();
    if (m[2] === '>' || m[2] === '<') {
      if (!/^-?\d+$/.test(value)) throw new SelectorParseError(`for 'Gt', 'Lt' operators, the value must be an integer: "${value}"`);
      return { key, operator: m[2] === '>' ? 'Gt' : 'Lt', values: [value] };
    }
    checkValue(value);
    return { key, operator: m[2] === '!=' ? 'NotIn' : 'In', values: [value] };
  }
  if (/^[^\s=!<>()]+$/.test(term)) return { key: checkKey(term), operator: 'Exists', values: [] };
  throw new SelectorParseError(`unable to parse requirement: "${term}"`);
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** A spec's LabelSelector. An empty selector matches everything; null/undefined nothing. */
export function fromLabelSelector(ls: LabelSelector | null | undefined): Selector | null {
  if (!ls) return null;
  const reqs: Requirement[] = Object.entries(ls.matchLabels ?? {}).map(([key, v]) => ({ key, operator: 'In', values: [v] }));
  for (const e of ls.matchExpressions ?? []) {
    if (!['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(e.operator)) throw new SelectorParseError(`"${e.operator}" is not a valid label selector operator`);
    reqs.push({ key: e.key, operator: e.operator as Operator, values: e.values ?? [] });
  }
  return reqs;
}

/** The string form (`status.selector` of Scale, log lines). */
export function selectorString(sel: Selector): string {
  return sel.map((r) => {
    switch (r.operator) {
      case 'In': return r.values.length === 1 ? `${r.key}=${r.values[0]}` : `${r.key} in (${[...r.values].sort().join(',')})`;
      case 'NotIn': return r.values.length === 1 ? `${r.key}!=${r.values[0]}` : `${r.key} notin (${[...r.values].sort().join(',')})`;
      case 'Exists': return r.key;
      case 'DoesNotExist': return `!${r.key}`;
      case 'Gt': return `${r.key}>${r.values[0]}`;
      case 'Lt': return `${r.key}<${r.values[0]}`;
    }
  }).join(',');
}

export interface FieldRequirement {
  field: string;
  op: '=' | '!=';
  value: string;
}

/** Field selectors: `metadata.name=web,status.phase!=Running`. */
export function parseFieldSelector(input: string): FieldRequirement[] {
  const s = input.trim();
  if (!s) return [];
  return s.split(',').map((term) => {
    const m = /^\s*([^=!\s]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(term);
    if (!m) throw new SelectorParseError(`invalid selector: '${term}'; can't understand '${term}'`);
    return { field: m[1], op: m[2] === '!=' ? '!=' : '=', value: m[3] };
  });
}

export function fieldsMatch(reqs: FieldRequirement[], fields: Record<string, string>): boolean {
  return reqs.every((r) => ((fields[r.field] ?? '') === r.value) === (r.op === '='));
}
