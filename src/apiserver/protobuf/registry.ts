// Which message a body holds, by the apiVersion and kind in its envelope. The messages of
// kinds the schema DSL describes are generated from it (generate.ts); the groups it does not
// describe yet keep hand-written tables.
import type { Messages } from './schema.js';
import { protobufTables } from './generate.js';
import { batch } from './tables/batch.js';
import { meta } from './tables/meta.js';
import { networking } from './tables/networking.js';

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

export const messages = merge(meta, generated.messages, batch, networking);

const handWrittenRoots: Record<string, string[]> = {
  'batch/v1': ['Job', 'CronJob'],
  'networking.k8s.io/v1': ['Ingress', 'NetworkPolicy'],
};

const byGroupVersion: Record<string, string[]> = { ...handWrittenRoots };
for (const [apiVersion, kinds] of Object.entries(generated.roots)) byGroupVersion[apiVersion] = [...byGroupVersion[apiVersion] ?? [], ...kinds];

/** The message for an apiVersion and kind, or undefined when we have no table for it. */
export function rootMessage(apiVersion: string, kind: string): string | undefined {
  // DeleteOptions is sent under the group of the resource being deleted.
  if (kind === 'DeleteOptions') return 'DeleteOptions';
  return byGroupVersion[apiVersion]?.includes(kind) ? kind : undefined;
}
