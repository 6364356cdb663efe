// The node half of `capstan up`: a private containerd (root under the data dir, its own
// mount namespace so a system containerd is left alone), capstan's built-in images, and a
// kubelet for one node named after the host. CNI: the reference ptp + host-local plugins,
// configured by the kubelet on the node's podCIDR unless --cni-conf-dir holds a config.
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { startContainerd } from '../kubelet/containerd/index.js';
import { ensureBuiltinImages } from '../kubelet/images/index.js';
import { startKubelet } from './kubelet.js';

export interface NodeOptions {
  dataDir: string;
  kubeconfig: string;
  nodeName?: string;
  cniBinDir?: string;
  cniConfDir?: string;
}

const CNI_BIN_DIRS = ['/usr/lib/cni', '/opt/cni/bin'];
const CGROUP_ROOT = '/capstan';

export async function startNode(o: NodeOptions): Promise<{ nodeName: string; stop(): Promise<void> }> {
  if (process.getuid?.() !== 0) throw new Error('the node agent needs root (containerd, runc, cgroups); run as root or pass --no-node');
  const cniBinDir = o.cniBinDir ?? CNI_BIN_DIRS.find((d) => existsSync(join(d, 'ptp')));
  if (!cniBinDir) throw new Error(`no CNI plugins found in ${CNI_BIN_DIRS.join(' or ')} (Debian: containernetworking-plugins); pass --cni-bin-dir or --no-node`);
  const cniConfDir = o.cniConfDir ?? join(o.dataDir, 'cni', 'net.d');
  const containerd = await startContainerd({ root: join(o.dataDir, 'containerd'), isolateMounts: true, cniBinDir, cniConfDir });
  const nodeName = (o.nodeName ?? hostname()).toLowerCase();
  try {
    await ensureBuiltinImages(containerd.socket);
    const kubelet = await startKubelet([
      '--kubeconfig', o.kubeconfig, '--hostname-override', nodeName, '--container-runtime-endpoint', containerd.socket,
      '--root-dir', join(o.dataDir, 'kubelet'), '--cni-conf-dir', cniConfDir, '--cgroup-root', CGROUP_ROOT,
    ]);
    return {
      nodeName,
      stop: async () => {
        await kubelet.stop();
        await containerd.destroy({ removeFiles: false, cgroupParents: [CGROUP_ROOT] });
      },
    };
  } catch (e) {
    await containerd.destroy({ removeFiles: false, cgroupParents: [CGROUP_ROOT] });
    throw e;
  }
}
