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
import { networkInterfaces } from 'node:os';
import { writeFileSync } from 'node:fs';
import { issueCert, loadOrCreate, certificateIPs, type KeyPair } from '../pki/index.js';

/** The kubelet's serving certificate, for every IPv4 address of this host (reissued if one is new). */
function kubeletServingCert(dataDir: string, ca: KeyPair, nodeName: string): { cert: string; key: string; ca: string } {
  const dir = join(dataDir, 'pki');
  const ips = ['127.0.0.1', ...Object.values(networkInterfaces()).flat().filter((a) => a && a.family === 'IPv4').map((a) => a!.address)];
  const make = () => issueCert(ca, { commonName: `system:node:${nodeName}`, organizations: ['system:nodes'], ipAddresses: [...new Set(ips)], dnsNames: [nodeName], usage: 'server' });
  let kp = loadOrCreate(dir, 'kubelet', make);
  const have = new Set(certificateIPs(kp.certPem));
  if (!ips.every((ip) => have.has(ip))) {
    kp = make();
    writeFileSync(join(dir, 'kubelet.crt'), kp.certPem);
    writeFileSync(join(dir, 'kubelet.key'), kp.keyPem, { mode: 0o600 });
  }
  const caFile = join(dir, 'ca.crt');
  return { cert: join(dir, 'kubelet.crt'), key: join(dir, 'kubelet.key'), ca: caFile };
}

export interface NodeOptions {
  dataDir: string;
  kubeconfig: string;
  /** The cluster CA: signs the kubelet's serving certificate and is the client CA it trusts. */
  ca: KeyPair;
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
    const tls = kubeletServingCert(o.dataDir, o.ca, nodeName);
    const kubelet = await startKubelet([
      '--tls-cert-file', tls.cert, '--tls-private-key-file', tls.key, '--client-ca-file', tls.ca,
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
