// `capstan node`: one node in the foreground — the network agent (a child process it
// supervises and restarts), a private containerd and the kubelet — joining an existing
// control plane. The multi-node lab runs one per node
// namespace; data (containerd root, CNI socket and state, kubelet dirs) stays under --data-dir.
import { parseArgs } from 'node:util';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startNode } from './up-node.js';
import { untilSignal } from './signals.js';

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv, strict: true,
    options: {
      'data-dir': { type: 'string', default: '.capstan-node' },
      kubeconfig: { type: 'string' },
      'ca-dir': { type: 'string' },
      'node-name': { type: 'string' },
      'node-ip': { type: 'string' },
      'cgroup-root': { type: 'string' },
    },
  });
  if (!values.kubeconfig || !values['ca-dir']) throw new Error('--kubeconfig and --ca-dir (the cluster CA: ca.crt and ca.key) are required');
  const dataDir = resolve(values['data-dir']);
  mkdirSync(join(dataDir, 'pki'), { recursive: true, mode: 0o700 });
  const ca = { certPem: readFileSync(join(values['ca-dir'], 'ca.crt'), 'utf8'), keyPem: readFileSync(join(values['ca-dir'], 'ca.key'), 'utf8') };
  // The kubelet trusts client certificates signed by the cluster CA (the API server's).
  writeFileSync(join(dataDir, 'pki', 'ca.crt'), ca.certPem);
  const node = await startNode({
    dataDir, kubeconfig: resolve(values.kubeconfig), ca, nodeName: values['node-name'],
    nodeIP: values['node-ip'], cgroupRoot: values['cgroup-root'],
  });
  process.stdout.write(`capstan node ${node.nodeName} is running\n`);
  const sig = await untilSignal();
  process.stdout.write(`capstan node: ${sig}, shutting down\n`);
  await node.stop();
  return 0;
}
