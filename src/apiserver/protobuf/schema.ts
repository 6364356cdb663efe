// The table format. A message is `{ fieldNumber: [jsonName, type] }` with the upstream
// (generated.proto) numbers and the JSON names. A type is written like Go:
//   'string' | 'bytes' | 'bool' | 'int32' | 'int64' | 'uint32' | 'uint64' | 'double' | 'float' | MessageName
//   '*T'     a pointer in Go: a present zero value (0, false, '') is kept
//   'T!'     no omitempty in JSON: a zero value is kept too
//   '[]T'    repeated;   'map<T>' map from string to T
//   '...T'   an embedded struct that JSON inlines (`json:",inline"`): its fields join the parent's
// Everything else that decodes to '', 0 or false is dropped, because gogo-protobuf writes the
// zero values of non-pointer fields that JSON's omitempty leaves out.

export type Field = readonly [name: string, type: string];
export type Table = Readonly<Record<number, Field>>;

export interface MessageDef {
  fields: Table;
  /** Turns the decoded fields into the JSON value (Time → string, IntOrString → number|string…); undefined drops it. */
  convert?: (o: Record<string, unknown>) => unknown;
}

export type Messages = Record<string, MessageDef>;

export const scalars = ['string', 'bytes', 'raw', 'bool', 'int32', 'int64', 'uint32', 'uint64', 'double', 'float'] as const;
export type Scalar = (typeof scalars)[number];

export interface FieldSpec {
  name: string;
  /** A scalar, or the name of a message. */
  base: string;
  scalar: boolean;
  repeated: boolean;
  map: boolean;
  inline: boolean;
  keepZero: boolean;
}

export function msg(fields: Table, convert?: MessageDef['convert']): MessageDef {
  return convert ? { fields, convert } : { fields };
}

export function parseField([name, type]: Field): FieldSpec {
  let t = type;
  const spec: FieldSpec = { name, base: '', scalar: false, repeated: false, map: false, inline: false, keepZero: false };
  if (t.startsWith('...')) { spec.inline = true; t = t.slice(3); }
  if (t.startsWith('[]')) { spec.repeated = true; t = t.slice(2); }
  const m = /^map<(.+)>$/.exec(t);
  if (m) { spec.map = true; t = m[1]; }
  if (t.startsWith('*')) { spec.keepZero = true; t = t.slice(1); }
  if (t.endsWith('!')) { spec.keepZero = true; t = t.slice(0, -1); }
  spec.base = t;
  spec.scalar = (scalars as readonly string[]).includes(t);
  return spec;
}
