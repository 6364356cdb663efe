// The toolkit sits under every layer: it may import Node's modules and itself, nothing else
// of capstan's (or the layers above it could not use it without a cycle).
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const dir = fileURLToPath(new URL('../../../src/util/', import.meta.url));

t.test('src/util imports only node: modules and its own files', async (t) => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
  t.ok(files.length > 5, 'found the toolkit sources');
  for (const f of files) {
    const specs = [...readFileSync(dir + f, 'utf8').matchAll(/^(?:import|export)\b[^'"]*from '([^']+)'/gm)].map((m) => m[1]!);
    const outside = specs.filter((s) => !s.startsWith('node:') && !/^\.\/[a-z-]+\.js$/.test(s));
    t.same(outside, [], f);
  }
});
