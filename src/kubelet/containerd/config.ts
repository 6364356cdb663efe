// containerd 1.6 configuration (version 2) for a capstan node.
import type { ContainerdPaths } from './paths.js';

export const DEFAULT_SANDBOX_IMAGE = 'localhost/capstan/pause:1';

export interface ContainerdConfigOptions {
  paths: ContainerdPaths;
  /** Directory of CNI plugin executables (containerd also calls `loopback` from here). */
  cniBinDir: string;
  /** Directory of CNI network configs; containerd uses the first one by name. */
  cniConfDir: string;
  /** Optional CNI config template; containerd renders it once UpdateRuntimeConfig sets the pod CIDR. */
  cniConfTemplate?: string;
  /** Defaults to localhost/capstan/pause:1 (built and imported by src/kubelet/images). */
  sandboxImage?: string;
  /** Where the CRI stream server (exec/attach/port-forward URLs) listens; it must be
   *  reachable from the kubelet that proxies it. Default 127.0.0.1, port 0 (any). */
  streamServerAddress?: string;
  streamServerPort?: number;
  /** debug, info (default), warn, error. */
  logLevel?: string;
  snapshotter?: string;
}

const q = (s: string) => JSON.stringify(s);

/** The TOML text. Pure, so the choices below are unit-tested without root. */
export function containerdConfig(o: ContainerdConfigOptions): string {
  const p = o.paths;
  const cri = '[plugins."io.containerd.grpc.v1.cri"]';
  return `# Written by capstan; regenerated on every start.
version = 2
root = ${q(p.root)}
state = ${q(p.state)}
oom_score = 0
# Plugins that only fail or cost start-up time on a capstan node.
disabled_plugins = [
  "io.containerd.snapshotter.v1.aufs",
  "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.devmapper",
  "io.containerd.snapshotter.v1.zfs",
  "io.containerd.tracing.processor.v1.otlp",
  "io.containerd.internal.v1.tracing",
]

[grpc]
  address = ${q(p.socket)}
  uid = 0
  gid = 0

[ttrpc]
  address = ${q(p.ttrpc)}

[debug]
  address = ${q(p.debug)}
  level = ${q(o.logLevel ?? 'info')}

[plugins."io.containerd.internal.v1.opt"]
  path = ${q(p.opt)}

${cri}
  sandbox_image = ${q(o.sandboxImage ?? DEFAULT_SANDBOX_IMAGE)}
  # Without CAP_SYS_RESOURCE runc cannot lower oom_score_adj below the parent's and dies
  # with "can't get final child's PID from pipe: EOF".
  restrict_oom_score_adj = true
  # Keeps each instance's /var/run/netns-style mounts inside its own state dir.
  netns_mounts_under_state_dir = true
  stream_server_address = ${q(o.streamServerAddress ?? '127.0.0.1')}
  stream_server_port = ${q(String(o.streamServerPort ?? 0))}
  enable_selinux = false
  disable_apparmor = true
  disable_tcp_service = true
  max_container_log_line_size = 16384
  tolerate_missing_hugetlb_controller = true
  disable_hugetlb_controller = true

  ${cri.slice(0, -1)}.cni]
    bin_dir = ${q(o.cniBinDir)}
    conf_dir = ${q(o.cniConfDir)}
    conf_template = ${q(o.cniConfTemplate ?? '')}
    max_conf_num = 1

  # Registry trust (a private CA, mirrors) per host: certs.d/<host[:port]>/hosts.toml.
  ${cri.slice(0, -1)}.registry]
    config_path = ${q(p.registryHosts)}

  ${cri.slice(0, -1)}.containerd]
    snapshotter = ${q(o.snapshotter ?? 'overlayfs')}
    default_runtime_name = "runc"

  ${cri.slice(0, -1)}.containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"

  ${cri.slice(0, -1)}.containerd.runtimes.runc.options]
    # No systemd on the node: cgroupfs paths.
    SystemdCgroup = false
    Root = ${q(p.runcRoot)}
`;
}
