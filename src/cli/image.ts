// `capstan image import FILE.tar [--name NAME] [--base-name REPO] [--data-dir D | --container-runtime-endpoint SOCK]`:
// loads an image archive (OCI image layout or `docker save` tar) into containerd's k8s.io
// namespace, where the kubelet's CRI sees it — images for a node without registry access.
// Without an endpoint it finds the node's containerd as `capstan up`/`join` run it
// (<data-dir>/containerd/containerd.sock; without --data-dir their defaults `.capstan` and
// `.capstan-node` in the current directory), else the system's.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { importArchive } from '../kubelet/images/index.js';
import { containerdPaths } from '../kubelet/containerd/index.js';

const SYSTEM_SOCKET = '/run/containerd/containerd.sock';
const USAGE = `usage: capstan image import FILE.tar [--name NAME] [--base-name REPO]
    [--data-dir D]                        the node's containerd as \`capstan up\`/\`join\` run it under D
                                          (default: .capstan or .capstan-node when one has it)
    [--container-runtime-endpoint unix://${SYSTEM_SOCKET}]   any other containerd
`;

/** The endpoint given, else a capstan node's containerd under the data dir(s) when it runs, else the system's. */
export function importSocket(endpoint: string | undefined, dataDir: string | undefined, cwd = process.cwd()): string {
  if (endpoint) return endpoint.replace(/^unix:\/\//, '');
  for (const dir of dataDir ? [dataDir] : ['.capstan', '.capstan-node']) {
    const node = containerdPaths(resolve(cwd, dir, 'containerd')).socket;
    if (existsSync(node)) return node;
  }
  if (dataDir) throw new Error(`no capstan node's containerd under ${resolve(cwd, dataDir)} (${containerdPaths(resolve(cwd, dataDir, 'containerd')).socket})`);
  return SYSTEM_SOCKET;
}

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv, strict: true, allowPositionals: true,
    options: {
      'container-runtime-endpoint': { type: 'string' },
      'data-dir': { type: 'string' },
      name: { type: 'string' },
      'base-name': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [verb, file, ...extra] = positionals;
  if (values.help || verb !== 'import' || !file || extra.length) {
    process.stderr.write(USAGE);
    return values.help ? 0 : 2;
  }
  const socket = importSocket(values['container-runtime-endpoint'], values['data-dir']);
  const results = await importArchive(socket, resolve(file), { indexName: values.name, baseName: values['base-name'] });
  for (const r of results) process.stdout.write(`${r.name}\t${r.id}\n`);
  return 0;
}
