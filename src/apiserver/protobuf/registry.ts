// Which message a body holds, by the apiVersion and kind in its envelope. The messages are
// generated from the schema DSL (generate.ts); only the wrapper conversions (tables/meta.ts)
// are hand-written.
import type { Messages } from './schema.js';
import { protobufTables } from './generate.js';
import { meta } from './tables/meta.js';

function merge(...groups: Messages[]): Messages {
  const all: Messages = {};
  for (const g of groups) {
    for (const [name, def] of Object.entries(g)) {
      if (name in all) throw new Error(`protobuf tables: message ${name} defined twice`);
      all[name] = def;
    }
  }
  return all;
}

const generated = protobufTables();

export const messages = merge(meta, generated.messages);

/** The message for an apiVersion and kind, or undefined when we have no table for it. */
export function rootMessage(apiVersion: string, kind: string): string | undefined {
  // DeleteOptions is sent under the group of the resource being deleted.
  if (kind === 'DeleteOptions') return 'DeleteOptions';
  return generated.roots[apiVersion]?.includes(kind) ? kind : undefined;
}
