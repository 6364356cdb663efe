// The protobuf tables are generated from the schema DSL, apart from the groups the DSL does not
// describe yet (src/api/DESIGN.md §3). While a group has both a DSL schema and a hand-written
// table, this keeps the two in step: a message the DSL also describes must use only field names
// the DSL knows, so a field renamed or added in one place and not the other fails here.
import t from 'tap';
import '../../src/api/schemas.js';
import { allTypes, resolve } from '../../src/api/schema.js';
import { messages } from '../../src/apiserver/protobuf/registry.js';

/** DSL object types by short name (PodSpec), when the short name is unique. */
function dslByShortName(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const seen = new Set<string>();
  for (const [name, schema] of allTypes()) {
    const short = name.slice(name.lastIndexOf('.') + 1);
    const s = resolve(schema);
    if (s.kind !== 'object') continue;
    if (seen.has(short)) { out.delete(short); continue; }
    seen.add(short);
    out.set(short, new Set(Object.keys(s.properties)));
  }
  return out;
}

t.test('every protobuf message the schema DSL also describes uses the DSL field names', async (t) => {
  const dsl = dslByShortName();
  let compared = 0;
  const missing: string[] = [];
  for (const [message, def] of Object.entries(messages)) {
    const props = dsl.get(message);
    if (!props) continue;
    compared++;
    for (const [name, type] of Object.values(def.fields)) {
      if (type.startsWith('...')) continue; // an inlined struct: its fields are the parent's
      if (!props.has(name)) missing.push(`${message}.${name}`);
    }
  }
  t.ok(compared >= 20, `compared ${compared} messages`);
  t.same(missing, [], 'protobuf fields the schema DSL does not describe');
});
