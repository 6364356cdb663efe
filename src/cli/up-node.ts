// The node half of `capstan up`: a private containerd (root under the data dir, its own
// mount namespace so a system containerd is left alone), capstan's built-in images, and a
// kubelet for one node named after the host. Pod networking: capstan's CNI plugin and its
// network agent; with --cni-conf-dir the user's configuration (or ptp written by the kubelet).
import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { startContainerd } from '../kubelet/containerd/index.js';
import { BUSYBOX_IMAGE, ensureBuiltinImages, NODE_IMAGE, PAUSE_IMAGE } from '../kubelet/images/index.js';
import { startKubelet } from './kubelet.js';
import { superviseNetworkAgent } from './network-agent-supervisor.js';
import { logger } from '../log/index.js';
import { startProxy } from './proxy.js';
import { startDNSCommand } from './dns.js';
import { networkInterfaces } from 'node:os';
import { writeFileSync } from 'node:fs';
import { issueCert, loadOrCreate, certificateIPs, type KeyPair } from '../pki/index.js';
import { fallbacks } from '../log/fallback.js';
import { nodeKubeconfigPath, realClock, writeNodeKubeconfigs, type NodeKubeconfigs } from '../client/index.js';
import { componentCredentials, type NodeComponent } from '../kubelet/certificate/index.js';

const fallback = fallbacks('node');

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
  /** Names the API server; each component gets a kubeconfig of its own identity (node-identities.ts). */
  kubeconfig: string;
  /**
   * The cluster CA: signs the kubelet's serving certificate and each component's client
   * certificate, and is the client CA the kubelet trusts. Without it (a node that joined with
   * a bootstrap token: `joined`), only `<dataDir>/pki/ca.crt` is there.
   */
  ca?: KeyPair;
  /**
   * A joined node (capstan join): the kubelet's kubeconfig (system:node:<name>, certificate
   * from a CSR, rotated) and the bootstrap kubeconfig it renews from. Nothing on the node can
   * issue certificates: the other components use `<dataDir>/<component>.kubeconfig` when an
   * operator provisioned one (capstan lab does), else the node requests their certificates
   * (kubelet/certificate/components.ts) for their own identities.
   */
  joined?: { kubeletKubeconfig: string; bootstrapKubeconfig: string };
  nodeName?: string;
  cniBinDir?: string;
  cniConfDir?: string;
  /** The kubelet's InternalIP (default: the first non-loopback IPv4 address). */
  nodeIP?: string;
  /** Parent cgroup of the node's pods; several nodes on one machine need one each. */
  cgroupRoot?: string;
  /** The cluster's pod network, for the proxy's masquerading and the agent's unreachable route (default 10.244.0.0/16). */
  clusterCIDR?: string;
  /** The kubelet's --service-account-token-max-ttl (tests). */
  tokenMaxTTL?: string;
}

/** Under the node's data dir: the PID of the supervised `capstan network-agent`. */
export const NETWORK_AGENT_PID_FILE = 'network-agent.pid';

const CNI_BIN_DIRS = ['/usr/lib/cni', '/opt/cni/bin'];
const CGROUP_ROOT = '/capstan';

export async function startNode(o: NodeOptions): Promise<{ nodeName: string; stop(): Promise<void> }> {
  if (process.getuid?.() !== 0) throw new Error('the node agent needs root (containerd, runc, cgroups); run as root or pass --no-node');
  const nodeName = (o.nodeName ?? hostname()).toLowerCase();
  const cgroupRoot = o.cgroupRoot ?? CGROUP_ROOT;
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => { for (const stop of stops.reverse()) await stop().catch((e: unknown) => fallback('stop-failed-continuing', { error: e })); };
  try {
    let kc: NodeKubeconfigs;
    if (o.ca) kc = writeNodeKubeconfigs(o.dataDir, o.ca, o.kubeconfig, nodeName);
    else if (o.joined) {
      // Kubeconfigs the operator provisioned for the other components (capstan lab does);
      // the others get certificates of their own identities, which the node requests.
      const components: NodeComponent[] = ['proxy', 'networkAgent', 'dns'];
      const missing = components.filter((c) => !existsSync(nodeKubeconfigPath(o.dataDir, c)));
      const creds = await componentCredentials({
        kubeletKubeconfig: o.joined.kubeletKubeconfig, certDir: join(o.dataDir, 'pki'), components: missing,
        kubeconfigPath: (c) => nodeKubeconfigPath(o.dataDir, c), clock: realClock, log: logger('node', { node: nodeName }),
      });
      stops.push(async () => creds.stop());
      kc = { kubelet: o.joined.kubeletKubeconfig, proxy: nodeKubeconfigPath(o.dataDir, 'proxy'), networkAgent: nodeKubeconfigPath(o.dataDir, 'networkAgent'), dns: nodeKubeconfigPath(o.dataDir, 'dns') };
    }
    else throw new Error('a node needs the cluster CA or a joined kubelet identity');
    // Pod networking: capstan's CNI plugin served by the network agent, unless the user
    // brings a CNI configuration of their own (then the kubelet falls back to ptp on it).
    let cniBinDir: string, cniConfDir: string, kubeletCNI: string[] = [];
    if (o.cniConfDir) {
      cniConfDir = o.cniConfDir;
      const bin = o.cniBinDir ?? CNI_BIN_DIRS.find((d) => existsSync(join(d, 'ptp')));
      if (!bin) throw new Error(`no CNI plugins found in ${CNI_BIN_DIRS.join(' or ')} (Debian: containernetworking-plugins); pass --cni-bin-dir or --no-node`);
      cniBinDir = bin;
      kubeletCNI = ['--cni-conf-dir', cniConfDir];
    } else {
      cniBinDir = join(o.dataDir, 'cni', 'bin');
      cniConfDir = join(o.dataDir, 'cni', 'net.d');
      // Its own process, supervised: restartable without touching containerd, kubelet or pods.
      const agent = await superviseNetworkAgent({
        args: ['--kubeconfig', kc.networkAgent, '--node-name', nodeName,
          '--cni-bin-dir', cniBinDir, '--cni-conf-dir', cniConfDir, '--socket', join(o.dataDir, 'cni.sock'),
          '--state-dir', join(o.dataDir, 'network'), '--health-port=-1', '--cluster-cidr', o.clusterCIDR ?? '10.244.0.0/16'],
        pidFile: join(o.dataDir, NETWORK_AGENT_PID_FILE),
        log: logger('node', { node: nodeName }),
      });
      stops.push(() => agent.stop());
    }
    const containerd = await startContainerd({ root: join(o.dataDir, 'containerd'), isolateMounts: true, cniBinDir, cniConfDir });
    stops.push(() => containerd.destroy({ removeFiles: false, cgroupParents: [cgroupRoot] }));
    // Pause (every sandbox) and busybox now; the node image only when a pod names it.
    await ensureBuiltinImages(containerd.socket, [PAUSE_IMAGE, BUSYBOX_IMAGE]);
    // Joined: the serving certificate comes from a CSR too (kubelet-serving signer).
    const serving = o.ca
      ? (({ cert, key, ca }) => ['--tls-cert-file', cert, '--tls-private-key-file', key, '--client-ca-file', ca])(kubeletServingCert(o.dataDir, o.ca, nodeName))
      : ['--rotate-server-certificates', 'true', '--client-ca-file', join(o.dataDir, 'pki', 'ca.crt'),
        '--rotate-certificates', 'true', '--bootstrap-kubeconfig', o.joined!.bootstrapKubeconfig, '--cert-dir', join(o.dataDir, 'pki')];
    const kubelet = await startKubelet([
      ...serving,
      '--kubeconfig', kc.kubelet, '--hostname-override', nodeName, '--container-runtime-endpoint', containerd.socket,
      '--root-dir', join(o.dataDir, 'kubelet'), '--cgroup-root', cgroupRoot, ...kubeletCNI,
      ...(o.nodeIP ? ['--node-ip', o.nodeIP] : []),
      ...(o.tokenMaxTTL ? ['--service-account-token-max-ttl', o.tokenMaxTTL] : []),
    ], { buildOnPull: [NODE_IMAGE] });
    stops.push(() => kubelet.stop());
    // Services on this node, and cluster DNS on 169.254.20.10 and the cluster DNS Service IP.
    const proxy = await startProxy(['--kubeconfig', kc.proxy, '--hostname-override', nodeName,
      '--cluster-cidr', o.clusterCIDR ?? '10.244.0.0/16', '--metrics-bind-address', '127.0.0.1:0', '--healthz-bind-address', '127.0.0.1:0']);
    stops.push(() => proxy.stop());
    const dns = await startDNSCommand(['--kubeconfig', kc.dns, '--node-name', nodeName, '--health-port', '0',
      ...(o.nodeIP ? ['--advertise-address', o.nodeIP] : [])]);
    stops.push(() => dns.stop());
    return { nodeName, stop: stopAll };
  } catch (e) {
    await stopAll();
    throw e;
  }
}
