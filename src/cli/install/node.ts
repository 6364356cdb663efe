// A node's side of the install: containerd configured for capstan (the system's
// containerd.service through a drop-in, or capstan-containerd.service), the node's identity
// from a bootstrap token (kubeadm join's discovery: no CA key leaves the control plane), its
// components' certificates requested by the node itself, and the built-in images.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { CRIClient } from '../../../cri/index.js';
import { nodeKubeconfigPath, realClock } from '../../client/index.js';
import { componentCredentials, type NodeComponent } from '../../kubelet/certificate/index.js';
import { containerdConfig, containerdPaths, type ContainerdPaths } from '../../kubelet/containerd/index.js';
import { importImage } from '../../kubelet/images/index.js';
import { logger } from '../../log/index.js';
import { joinCluster } from '../join.js';
import type { InstallFiles } from './files.js';
import { CONTAINERD_UNIT, SYSTEM_CONTAINERD_UNIT, type Layout } from './layout.js';
import type { JoinArgs } from './control-plane.js';
import { until } from './wait.js';

/** capstan's containerd: root under /var/lib/capstan, everything volatile under /run/capstan. */
export function nodeContainerdPaths(L: Layout): ContainerdPaths {
  const run = join(L.run, 'containerd');
  return {
    ...containerdPaths(join(L.varLib, 'containerd')),
    config: L.containerdConfig,
    state: join(run, 'state'),
    socket: join(run, 'containerd.sock'),
    ttrpc: join(run, 'containerd.sock.ttrpc'),
    debug: join(run, 'debug.sock'),
    runcRoot: join(run, 'runc'),
  };
}

/** The paths as the running node sees them (the layout may be below a test root). */
export const liveSocket = '/run/capstan/containerd/containerd.sock';

export function containerdConfigText(L: Layout): string {
  const live = nodeContainerdPaths({ ...L, ...layoutAtRoot(L) });
  return containerdConfig({ paths: live, cniBinDir: '/var/lib/capstan/cni/bin', cniConfDir: '/etc/capstan/cni/net.d' });
}

/** The fixed, root-relative paths written into configuration files. */
function layoutAtRoot(L: Layout): Partial<Layout> {
  const strip = (p: string) => p.slice(L.root.replace(/\/$/, '').length) || '/';
  return { root: '/', varLib: strip(L.varLib), run: strip(L.run), containerdConfig: strip(L.containerdConfig) };
}

export const NODE_NAME = () => hostname().toLowerCase();

/**
 * containerd's configuration and the unit that runs it. Returns the unit, and whether its
 * configuration changed (it must be restarted).
 */
export function writeContainerdFiles(L: Layout, files: InstallFiles, systemUnit: boolean, release: string): { unit: string; dropIn?: string; changed: boolean } {
  let changed = files.write(L.containerdConfig, containerdConfigText(L));
  // containerd's CNI calls create libcni's cache dir: removed by uninstall if this install made it.
  files.expect(join(L.cniCache, 'results'));
  const unit = systemUnit ? SYSTEM_CONTAINERD_UNIT : CONTAINERD_UNIT;
  let dropIn: string | undefined;
  if (systemUnit) {
    dropIn = join(L.units, `${SYSTEM_CONTAINERD_UNIT}.d`, 'capstan.conf');
    changed = files.write(dropIn, readFileSync(join(release, 'systemd', 'containerd.service.d', 'capstan.conf'))) || changed;
  } else {
    changed = files.write(join(L.units, CONTAINERD_UNIT), readFileSync(join(release, 'systemd', CONTAINERD_UNIT))) || changed;
  }
  files.write(join(L.units, 'capstan-node.target.d', 'containerd.conf'), `# Written by capstan install: the node's container runtime.\n[Unit]\nWants=${unit}\nAfter=${unit}\n`);
  return { unit, dropIn, changed };
}

/** The kubelet's identity: joined once; a second install keeps it (its certificate rotates). */
export async function joinNode(L: Layout, files: InstallFiles, join_: JoinArgs | undefined, nodeName: string): Promise<'joined' | 'kept'> {
  const kubeconfig = join(L.nodeEtc, 'kubelet.conf');
  if (existsSync(kubeconfig)) return 'kept';
  if (!join_) throw new Error('this node has not joined a cluster: pass --join https://SERVER:6443 --token ID.SECRET --discovery-token-ca-cert-hash sha256:HASH (printed by the control plane\'s install or `capstan token create`)');
  files.mkdir(L.nodeEtc, 0o700);
  await joinCluster({ server: join_.server, token: join_.token, caCertHashes: [join_.caCertHash], dataDir: L.nodeEtc, nodeName });
  return 'joined';
}

/** The proxy's, network agent's and DNS's certificates, requested by the node (its Node must exist); the kubelet keeps them renewed (--rotate-component-certificates). */
export async function nodeComponentKubeconfigs(L: Layout, nodeName: string): Promise<NodeComponent[]> {
  const components: NodeComponent[] = ['proxy', 'networkAgent', 'dns'];
  const missing = components.filter((c) => !existsSync(nodeKubeconfigPath(L.nodeEtc, c)));
  if (!missing.length) return [];
  const creds = await componentCredentials({
    kubeletKubeconfig: join(L.nodeEtc, 'kubelet.conf'), certDir: join(L.nodeEtc, 'pki'), components: missing,
    kubeconfigPath: (c) => nodeKubeconfigPath(L.nodeEtc, c), clock: realClock, log: logger('install', { node: nodeName }),
  });
  creds.stop();
  return missing;
}

export interface ReleaseImage {
  name: string;
  file: string;
  configDigest: string;
  manifestDigest: string;
}

/** The release's images into containerd's k8s.io namespace (once containerd answers). */
export async function importReleaseImages(release: string, socket: string, timeoutMs: number): Promise<string[]> {
  const indexFile = join(release, 'images', 'index.json');
  const images = existsSync(indexFile) ? JSON.parse(readFileSync(indexFile, 'utf8')) as ReleaseImage[] : [];
  const cri = new CRIClient({ socket });
  try {
    await until('containerd', timeoutMs, async () => (await cri.version(), true), 1000);
    const out: string[] = [];
    for (const img of images) {
      const r = await importImage(socket, { ...img, archive: readFileSync(join(release, 'images', img.file)) }, { client: cri });
      if (r.imported) out.push(img.name);
    }
    return out;
  } finally {
    cri.close();
  }
}
