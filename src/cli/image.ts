// `capstan image import FILE.tar [--name NAME] [--base-name REPO] [--container-runtime-endpoint SOCK]`:
// loads an image archive (OCI image layout or `docker save` tar) into containerd's k8s.io
// namespace, where the kubelet's CRI sees it — images for a node without registry access.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { importArchive } from '../kubelet/images/index.js';

const USAGE = 'usage: capstan image import FILE.tar [--name NAME] [--base-name REPO] [--container-runtime-endpoint unix:///run/containerd/containerd.sock]\n';

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv, strict: true, allowPositionals: true,
    options: {
      'container-runtime-endpoint': { type: 'string', default: 'unix:///run/containerd/containerd.sock' },
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
  const socket = values['container-runtime-endpoint'].replace(/^unix:\/\//, '');
  const results = await importArchive(socket, resolve(file), { indexName: values.name, baseName: values['base-name'] });
  for (const r of results) process.stdout.write(`${r.name}\t${r.id}\n`);
  return 0;
}
