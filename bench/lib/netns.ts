// Scratch network namespaces for benchmarks, always removed (also on failure or Ctrl-C).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { execa } from 'execa';

const created = new Set<string>();
let hooked = false;

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  const cleanup = () => {
    for (const name of created) {
      try {
        // Synchronous on purpose: this runs while the process is exiting.
        execFileSync('ip', ['netns', 'del', name], { stdio: 'ignore' });
      } catch { /* already gone */ }
    }
    created.clear();
  };
  process.on('exit', cleanup);
  for (const sig of ['SIGINT', 'SIGTERM'] as const) process.on(sig, () => { cleanup(); process.exit(130); });
}

export interface BenchNamespace {
  name: string;
  path: string;
}

export async function addNamespace(prefix = 'capstan-b'): Promise<BenchNamespace> {
  hookExit();
  const name = `${prefix}-${randomBytes(4).toString('hex')}`;
  await execa('ip', ['netns', 'add', name]);
  created.add(name);
  return { name, path: `/run/netns/${name}` };
}

export async function removeNamespace(ns: BenchNamespace): Promise<void> {
  await execa('ip', ['netns', 'del', ns.name], { reject: false });
  created.delete(ns.name);
}
