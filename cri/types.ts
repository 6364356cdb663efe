// TypeScript shapes of the CRI runtime.v1 messages in api.proto, as @grpc/proto-loader
// hands them over with keepCase/longs: String/enums: String/defaults/oneofs:
// * field names are the proto's snake_case names;
// * int64/uint64 arrive as decimal strings (nanosecond timestamps do not fit a double),
//   and may be sent as numbers or strings;
// * enums arrive as their names;
// * with `defaults`, absent scalars arrive as '' / 0 / false, repeated as [], maps as {},
//   absent messages as null.
// Request types mark everything optional that the runtime treats as optional.

export type Int64 = string;
export type Int64In = number | string;
export type Labels = Record<string, string>;

// ---- enums ----
export type NamespaceMode = 'POD' | 'CONTAINER' | 'NODE' | 'TARGET';
export type Protocol = 'TCP' | 'UDP' | 'SCTP';
export type MountPropagation = 'PROPAGATION_PRIVATE' | 'PROPAGATION_HOST_TO_CONTAINER' | 'PROPAGATION_BIDIRECTIONAL';
export type PodSandboxState = 'SANDBOX_READY' | 'SANDBOX_NOTREADY';
export type ContainerState = 'CONTAINER_CREATED' | 'CONTAINER_RUNNING' | 'CONTAINER_EXITED' | 'CONTAINER_UNKNOWN';
export type ProfileType = 'RuntimeDefault' | 'Unconfined' | 'Localhost';

// ---- shared ----
export interface KeyValue { key: string; value: string }
export interface DNSConfig { servers?: string[]; searches?: string[]; options?: string[] }
export interface PortMapping { protocol?: Protocol; container_port: number; host_port?: number; host_ip?: string }
export interface Mount {
  container_path: string;
  host_path: string;
  readonly?: boolean;
  selinux_relabel?: boolean;
  propagation?: MountPropagation;
}
export interface NamespaceOption { network?: NamespaceMode; pid?: NamespaceMode; ipc?: NamespaceMode; target_id?: string }
export interface Int64Value { value: Int64In }
export interface SecurityProfile { profile_type: ProfileType; localhost_ref?: string }
export interface ImageSpec { image: string; annotations?: Labels }
export interface LinuxContainerResources {
  cpu_period?: Int64In;
  cpu_quota?: Int64In;
  cpu_shares?: Int64In;
  memory_limit_in_bytes?: Int64In;
  oom_score_adj?: Int64In;
  cpuset_cpus?: string;
  cpuset_mems?: string;
  unified?: Labels;
  memory_swap_limit_in_bytes?: Int64In;
}

// ---- version / status ----
export interface VersionResponse {
  version: string;
  runtime_name: string;
  runtime_version: string;
  runtime_api_version: string;
}
export interface RuntimeCondition { type: string; status: boolean; reason: string; message: string }
export interface StatusResponse { status: { conditions: RuntimeCondition[] } | null; info: Labels }

// ---- sandboxes ----
export interface PodSandboxMetadata { name: string; uid: string; namespace: string; attempt?: number }
export interface LinuxSandboxSecurityContext {
  namespace_options?: NamespaceOption;
  run_as_user?: Int64Value;
  run_as_group?: Int64Value;
  readonly_rootfs?: boolean;
  supplemental_groups?: Int64In[];
  privileged?: boolean;
  seccomp?: SecurityProfile;
  apparmor?: SecurityProfile;
}
export interface LinuxPodSandboxConfig {
  cgroup_parent?: string;
  security_context?: LinuxSandboxSecurityContext;
  sysctls?: Labels;
  overhead?: LinuxContainerResources;
  resources?: LinuxContainerResources;
}
export interface PodSandboxConfig {
  metadata: PodSandboxMetadata;
  hostname?: string;
  /** Absolute directory; ContainerConfig.log_path is relative to it. */
  log_directory?: string;
  /** Send it: without it containerd copies the host's resolv.conf. */
  dns_config?: DNSConfig;
  port_mappings?: PortMapping[];
  labels?: Labels;
  annotations?: Labels;
  linux?: LinuxPodSandboxConfig;
}

export interface PodSandboxMetadataOut { name: string; uid: string; namespace: string; attempt: number }
export interface PodSandboxStatus {
  id: string;
  metadata: PodSandboxMetadataOut | null;
  state: PodSandboxState;
  created_at: Int64;
  network: { ip: string; additional_ips: { ip: string }[] } | null;
  linux: { namespaces: { options: { network: NamespaceMode; pid: NamespaceMode; ipc: NamespaceMode; target_id: string } | null } | null } | null;
  labels: Labels;
  annotations: Labels;
  runtime_handler: string;
}
export interface PodSandboxStatusResponse { status: PodSandboxStatus | null; info: Labels }
export interface PodSandboxFilter { id?: string; state?: { state: PodSandboxState }; label_selector?: Labels }
export interface PodSandbox {
  id: string;
  metadata: PodSandboxMetadataOut | null;
  state: PodSandboxState;
  created_at: Int64;
  labels: Labels;
  annotations: Labels;
  runtime_handler: string;
}

// ---- containers ----
export interface ContainerMetadata { name: string; attempt?: number }
export interface LinuxContainerSecurityContext {
  capabilities?: { add_capabilities?: string[]; drop_capabilities?: string[] };
  privileged?: boolean;
  namespace_options?: NamespaceOption;
  run_as_user?: Int64Value;
  run_as_username?: string;
  run_as_group?: Int64Value;
  readonly_rootfs?: boolean;
  supplemental_groups?: Int64In[];
  no_new_privs?: boolean;
  masked_paths?: string[];
  readonly_paths?: string[];
  seccomp?: SecurityProfile;
  apparmor?: SecurityProfile;
}
export interface ContainerConfig {
  metadata: ContainerMetadata;
  image: ImageSpec;
  command?: string[];
  args?: string[];
  working_dir?: string;
  envs?: KeyValue[];
  mounts?: Mount[];
  devices?: { container_path: string; host_path: string; permissions: string }[];
  labels?: Labels;
  annotations?: Labels;
  /** Relative to the sandbox's log_directory. */
  log_path?: string;
  stdin?: boolean;
  stdin_once?: boolean;
  tty?: boolean;
  linux?: { resources?: LinuxContainerResources; security_context?: LinuxContainerSecurityContext };
}
export interface ContainerFilter {
  id?: string;
  state?: { state: ContainerState };
  pod_sandbox_id?: string;
  label_selector?: Labels;
}
export interface ImageSpecOut { image: string; annotations: Labels }
export interface Container {
  id: string;
  pod_sandbox_id: string;
  metadata: { name: string; attempt: number } | null;
  image: ImageSpecOut | null;
  image_ref: string;
  state: ContainerState;
  created_at: Int64;
  labels: Labels;
  annotations: Labels;
}
export interface ContainerStatus {
  id: string;
  metadata: { name: string; attempt: number } | null;
  state: ContainerState;
  created_at: Int64;
  started_at: Int64;
  finished_at: Int64;
  exit_code: number;
  image: ImageSpecOut | null;
  image_ref: string;
  reason: string;
  message: string;
  labels: Labels;
  annotations: Labels;
  mounts: Required<Mount>[];
  log_path: string;
}
export interface ContainerStatusResponse { status: ContainerStatus | null; info: Labels }
export interface ExecSyncResponse { stdout: Buffer; stderr: Buffer; exit_code: number }
export interface ExecRequest {
  container_id: string;
  cmd: string[];
  tty?: boolean;
  stdin?: boolean;
  stdout?: boolean;
  stderr?: boolean;
}
export interface AttachRequest {
  container_id: string;
  stdin?: boolean;
  tty?: boolean;
  stdout?: boolean;
  stderr?: boolean;
}

// ---- images ----
export interface Image {
  /** The config digest, sha256:... */
  id: string;
  repo_tags: string[];
  repo_digests: string[];
  size: Int64;
  uid: { value: Int64 } | null;
  username: string;
  spec: ImageSpecOut | null;
  pinned: boolean;
}
export interface AuthConfig {
  username?: string;
  password?: string;
  auth?: string;
  server_address?: string;
  identity_token?: string;
  registry_token?: string;
}
export interface FilesystemUsage {
  timestamp: Int64;
  fs_id: { mountpoint: string } | null;
  used_bytes: { value: Int64 } | null;
  inodes_used: { value: Int64 } | null;
}
export interface ContainerStatsFilter {
  id?: string;
  pod_sandbox_id?: string;
  label_selector?: Labels;
}
type UInt64Value = { value: Int64 } | null;
/** Running containers' usage (cumulative CPU, working set) as the runtime measured it at `timestamp` (ns). */
export interface ContainerStats {
  attributes: { id: string; metadata: { name: string; attempt: number } | null; labels: Labels; annotations: Labels } | null;
  cpu: { timestamp: Int64; usage_core_nano_seconds: UInt64Value; usage_nano_cores: UInt64Value } | null;
  memory: { timestamp: Int64; working_set_bytes: UInt64Value; available_bytes: UInt64Value; usage_bytes: UInt64Value; rss_bytes: UInt64Value; page_faults: UInt64Value; major_page_faults: UInt64Value } | null;
  writable_layer: FilesystemUsage | null;
}
export interface ImageFsInfoResponse { image_filesystems: FilesystemUsage[]; container_filesystems: FilesystemUsage[] }
