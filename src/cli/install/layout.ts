// Where `capstan install` puts things on a machine, all below one root ("/" on a real
// machine; a scratch directory in tests, as `systemctl --root` takes it).
import { join } from 'node:path';

export type Role = 'control-plane' | 'node' | 'all';

export interface Layout {
  root: string;
  /** The release: bin/capstan, node/bin/node, dist/, node_modules/, systemd/, images/. */
  opt: string;
  /** Configuration and credentials: pki/ (the cluster CA for a control plane), kubeconfigs, containerd.toml. */
  etc: string;
  /** A node's credentials (joined with a bootstrap token: no CA key). */
  nodeEtc: string;
  defaults: string;
  /** Unit files capstan installs. */
  units: string;
  /** State: the API server's database, kubelet and network agent dirs, containerd's root. */
  varLib: string;
  run: string;
  manifest: string;
  containerdConfig: string;
  cniBin: string;
  cniConf: string;
  /** libcni's cache of ADD results, which containerd's CNI calls write (libcni's default dir). */
  cniCache: string;
}

export function layout(root = '/'): Layout {
  const p = (path: string) => join(root, path);
  return {
    root,
    opt: p('/opt/capstan'),
    etc: p('/etc/capstan'),
    nodeEtc: p('/etc/capstan/node'),
    defaults: p('/etc/default/capstan'),
    units: p('/etc/systemd/system'),
    varLib: p('/var/lib/capstan'),
    run: p('/run/capstan'),
    manifest: p('/var/lib/capstan/install-manifest.json'),
    containerdConfig: p('/etc/capstan/containerd.toml'),
    cniBin: p('/var/lib/capstan/cni/bin'),
    cniConf: p('/etc/capstan/cni/net.d'),
    cniCache: p('/var/lib/cni'),
  };
}

export const CONTROL_PLANE_UNITS = ['capstan-apiserver.service', 'capstan-controller-manager.service', 'capstan-scheduler.service'];
/** In start order: the agent serves CNI before the kubelet runs pods. */
export const NODE_UNITS = ['capstan-network-agent.service', 'capstan-kubelet.service', 'capstan-proxy.service', 'capstan-dns.service'];
export const ETCD_UNIT = 'capstan-etcd.service';
export const CONTAINERD_UNIT = 'capstan-containerd.service';
export const SYSTEM_CONTAINERD_UNIT = 'containerd.service';

export const hasControlPlane = (role: Role) => role === 'control-plane' || role === 'all';
export const hasNode = (role: Role) => role === 'node' || role === 'all';
