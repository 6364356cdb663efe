// The simple JSON paths CRDs use for scale replicas, printer columns and selectable fields
// (`.spec.replicas`, `.status.conditions[0].type`, `.metadata.labels['app']`).
import { isObject, type JSONSchemaProps } from './structural.js';

export type PathPart = string | number;

/** `.a.b[0]['c.d']` → ['a', 'b', 0, 'c.d']; null when not a simple path. */
export function parseSimplePath(path: string): PathPart[] | null {
  let p = path.trim();
  if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1);
  if (p.startsWith('$')) p = p.slice(1);
  const parts: PathPart[] = [];
  const re = /^(?:\.([A-Za-z0-9_$-]+)|\[(\d+)\]|\[['"]([^'"]+)['"]\])/;
  while (p.length) {
    const m = re.exec(p);
    if (!m) return null;
    parts.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : m[3]));
    p = p.slice(m[0].length);
  }
  return parts.length ? parts : null;
}

export function valueAt(obj: unknown, parts: PathPart[]): unknown {
  let v: unknown = obj;
  for (const part of parts) {
    if (typeof part === 'number') v = Array.isArray(v) ? v[part] : undefined;
    else v = isObject(v) ? v[part] : undefined;
    if (v === undefined) return undefined;
  }
  return v;
}

/** Writes `value` at `parts`, creating objects on the way. */
export function setValueAt(obj: Record<string, unknown>, parts: PathPart[], value: unknown): void {
  let v: Record<string, unknown> = obj;
  for (const part of parts.slice(0, -1)) {
    const next = v[String(part)];
    if (!isObject(next)) v[String(part)] = {};
    v = v[String(part)] as Record<string, unknown>;
  }
  v[String(parts[parts.length - 1])] = value;
}

/** The schema at `parts` (metadata.name/namespace are strings), or undefined. */
export function pathSchema(s: JSONSchemaProps, parts: PathPart[]): JSONSchemaProps | undefined {
  if (parts[0] === 'metadata') return parts.length === 2 && (parts[1] === 'name' || parts[1] === 'namespace') ? { type: 'string' } : undefined;
  let cur: JSONSchemaProps | undefined = s;
  for (const part of parts) {
    if (!cur) return undefined;
    if (typeof part === 'number') cur = Array.isArray(cur.items) ? undefined : cur.items;
    else cur = cur.properties?.[part] ?? (isObject(cur.additionalProperties) ? cur.additionalProperties as JSONSchemaProps : undefined);
  }
  return cur;
}
