// Path elements of field sets as FieldsV1 spells them (structured-merge-diff
// fieldpath/serialize-pe.go): `f:<field>`, `k:<json object of the key fields, keys sorted>`
// for list-map items, `v:<json value>` for set items, `i:<index>` for positions.
// A serialized element is the identity of a child throughout this package.

export type PathElement = string;
export type Path = readonly PathElement[];

/** JSON as Go's encoding/json writes it: `<`, `>`, `&` escaped. */
function goJson(v: unknown): string {
  return JSON.stringify(v).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
}

export const fieldElement = (name: string): PathElement => `f:${name}`;
export const valueElement = (value: unknown): PathElement => `v:${goJson(value)}`;
export const indexElement = (index: number): PathElement => `i:${index}`;

export function keyElement(fields: Record<string, unknown>): PathElement {
  const sorted: Record<string, unknown> = {};
  for (const name of Object.keys(fields).sort()) sorted[name] = fields[name];
  return `k:${goJson(sorted)}`;
}

export function isFieldElement(pe: PathElement): boolean {
  return pe.startsWith('f:');
}

const typeRank: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

/** Field names first, then keys, values, indexes (fieldpath.PathElement.Compare, approximately). */
export function compareElements(a: PathElement, b: PathElement): number {
  const ra = typeRank[a[0]!] ?? 4;
  const rb = typeRank[b[0]!] ?? 4;
  if (ra !== rb) return ra - rb;
  if (a[0] === 'i') return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

function scalarString(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? 'null';
}

/** `.spec.replicas`, `[name="web"]`, `[="x"]`, `[0]`: how Kubernetes prints paths in conflicts. */
export function displayElement(pe: PathElement): string {
  const body = pe.slice(2);
  switch (pe[0]) {
    case 'f':
      return `.${body}`;
    case 'k': {
      const fields = JSON.parse(body) as Record<string, unknown>;
      return `[${Object.entries(fields).map(([k, v]) => `${k}=${scalarString(v)}`).join(',')}]`;
    }
    case 'v':
      return `[=${scalarString(JSON.parse(body))}]`;
    default:
      return `[${body}]`;
  }
}

export function displayPath(path: Path): string {
  return path.map(displayElement).join('');
}

/** Checks that a FieldsV1 key is a well-formed path element. */
export function isPathElement(s: string): boolean {
  if (s.length < 2 || s[1] !== ':') return false;
  const body = s.slice(2);
  try {
    switch (s[0]) {
      case 'f':
        return true;
      case 'k': {
        const parsed: unknown = JSON.parse(body);
        return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
      }
      case 'v':
        JSON.parse(body);
        return true;
      case 'i':
        return /^(0|[1-9][0-9]*)$/.test(body);
      default:
        return false;
    }
  } catch { // not parsable is the answer: not a valid path element
    return false;
  }
}
