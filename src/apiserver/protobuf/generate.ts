// The decode tables generated from the schema DSL: every object type with fields tagged `pb(n, …)`
// is a message named by its short name (PodSpec), and every kind among them is a root for its
// group/version/kind. The wrapper messages (Time, IntOrString, Quantity …) are not generated:
// they are wire rules, hand-written in tables/meta.ts.
import '../../api/schemas.js';
import { allTypes, type ObjectSchema, type Schema } from '../../api/schema.js';
import type { Field, Messages, Table } from './schema.js';

export interface GeneratedTables {
  messages: Messages;
  /** apiVersion (`v1`, `apps/v1`) → the kinds whose messages are generated. */
  roots: Record<string, string[]>;
}

const shortName = (name: string): string => name.slice(name.lastIndexOf('.') + 1);

/** The table type of a field's schema, without the zero rule. */
function baseType(s: Schema, where: string): string {
  switch (s.kind) {
    case 'ref': return shortName(s.name);
    case 'string': return s.format === 'byte' ? 'bytes' : s.format === 'date-time' ? 'Time' : 'string';
    case 'integer': return s.format === 'int64' ? 'int64' : 'int32';
    case 'number': return 'double';
    case 'boolean': return 'bool';
    case 'int-or-string': return 'IntOrString';
    case 'quantity': return 'Quantity';
    case 'array':
      if (s.items.kind === 'array' || s.items.kind === 'map') throw new Error(`protobuf: ${where}: a nested list or map needs a named message`);
      return `[]${baseType(s.items, where)}`;
    case 'map':
      // Go needs a named type for map[string][]string; every Kubernetes API calls it ExtraValue.
      if (s.values.kind === 'array' && s.values.items.kind === 'string') return 'map<ExtraValue>';
      return `map<${baseType(s.values, where)}>`;
    default: throw new Error(`protobuf: ${where}: no protobuf type for a schema of kind ${s.kind}`);
  }
}

function fieldOf(name: string, s: Schema, where: string): Field {
  const t = baseType(s, where);
  const collection = t.startsWith('[]') || t.startsWith('map<');
  return [name, s.proto?.keepZero && !collection ? `${t}!` : t];
}

function sameTable(a: Table, b: Table): boolean {
  const norm = (t: Table) => JSON.stringify(Object.entries(t).sort(([x], [y]) => Number(x) - Number(y)));
  return norm(a) === norm(b);
}

/** The messages one object type yields: itself and the embedded structs its fields name. */
function messagesOf(name: string, o: ObjectSchema): [string, Table][] {
  const own: Record<number, Field> = {};
  const embedded = new Map<string, Record<number, Field>>();
  const put = (table: Record<number, Field>, n: number, f: Field, where: string): void => {
    if (table[n]) throw new Error(`protobuf: ${where}: field number ${n} used twice`);
    table[n] = f;
  };
  for (const [prop, s] of Object.entries(o.properties)) {
    if (!s.proto) continue;
    const where = `${name}.${prop}`;
    const f = fieldOf(prop, s, where);
    if (s.proto.in) {
      const t = embedded.get(s.proto.in) ?? embedded.set(s.proto.in, {}).get(s.proto.in)!;
      put(t, s.proto.n, f, where);
    } else {
      put(own, s.proto.n, f, where);
    }
  }
  const out: [string, Table][] = [];
  for (const [inner, parent] of Object.entries(o.protoEmbedIn ?? {})) {
    if (!embedded.has(parent)) embedded.set(parent, {});
    if (!embedded.has(inner)) throw new Error(`protobuf: ${name}: protoEmbedIn names ${inner}, which no field is in`);
  }
  for (const [inner, table] of embedded) {
    const n = o.protoEmbeds?.[inner];
    if (n === undefined) throw new Error(`protobuf: ${name}: fields in ${inner}, but protoEmbeds gives it no number`);
    const parent = o.protoEmbedIn?.[inner];
    put(parent ? embedded.get(parent)! : own, n, ['', `...${inner}`], `${name} embedding ${inner}${parent ? ` in ${parent}` : ''}`);
    out.push([inner, table]);
  }
  out.unshift([shortName(name), own]);
  return out;
}

/** Walks the DSL's registered types. Throws on a tag the decoder could not follow. */
export function protobufTables(): GeneratedTables {
  const messages: Messages = {};
  const from = new Map<string, string>();
  const roots: Record<string, string[]> = {};
  for (const [name, schema] of allTypes()) {
    if (schema.kind !== 'object' || !Object.values(schema.properties).some((p) => p.proto)) continue;
    for (const [message, fields] of messagesOf(name, schema)) {
      const prior = messages[message];
      if (prior && !sameTable(prior.fields, fields)) {
        throw new Error(`protobuf: message ${message} from ${name} differs from the one from ${from.get(message)}`);
      }
      messages[message] = { fields };
      from.set(message, name);
    }
    for (const g of schema.gvk ?? []) {
      const apiVersion = g.group ? `${g.group}/${g.version}` : g.version;
      (roots[apiVersion] ??= []).push(g.kind);
    }
  }
  return { messages, roots };
}
