// The CRI ContainerConfig for one container of a pod: command/args with $(VAR) expansion,
// env, working dir, mounts (volumes and the kubelet's /etc/hosts), resources mapped to
// Linux cgroup values, the security context, and the labels/annotations a restarted
// kubelet reads back.
import { join } from 'node:path';
import type { ContainerConfig, LinuxContainerResources, Mount } from '../../cri/index.js';
import { expand } from './env.js';
import {
  CONTAINER_HASH_ANNOTATION, CONTAINER_NAME_LABEL, GRACE_PERIOD_ANNOTATION, INIT_CONTAINER_ANNOTATION,
  RESTART_COUNT_ANNOTATION, TERMINATION_MESSAGE_PATH_ANNOTATION, TERMINATION_MESSAGE_POLICY_ANNOTATION, containerLogPath,
} from './labels.js';
import { milliValue, value } from '../util/index.js';
import { containerHash } from './pod-spec.js';
import { podRuntimeLabels } from './sandbox-config.js';
import { MountError } from './volumes.js';
import type { Pod } from '../api/kinds.js';
import type { Container, PodSecurityContext, SecurityContext } from 'kubernetes-types/core/v1.js';

export const CPU_PERIOD_US = 100_000;
const MIN_SHARES = 2;

/** Requests → cpu shares, limits → CFS quota/period and memory limit (cgroupfs values). */
export function linuxResources(container: Partial<Container>): LinuxContainerResources {
  const req: { [name: string]: string } = container.resources?.requests ?? {};
  const lim: { [name: string]: string } = container.resources?.limits ?? {};
  const reqCPU = milliValue(req.cpu ?? lim.cpu, 0);
  const out: LinuxContainerResources = {
    cpu_shares: Math.max(MIN_SHARES, Math.floor((reqCPU * 1024) / 1000)),
  };
  const limCPU = milliValue(lim.cpu, 0);
  if (limCPU > 0) {
    out.cpu_period = CPU_PERIOD_US;
    out.cpu_quota = Math.max(1000, Math.floor((limCPU * CPU_PERIOD_US) / 1000));
  }
  const mem = value(lim.memory, 0);
  if (mem > 0) out.memory_limit_in_bytes = mem;
  return out;
}

export interface ContainerConfigInput {
  pod: Pod;
  container: Container;
  init: boolean;
  restartCount: number;
  env: { key: string; value: string }[];
  volumes: Map<string, string>;
  /** The pod's kubelet-written hosts file, or undefined (host network). */
  hostsFile?: string;
  /** The image to run (its ID as the runtime resolved it). */
  image: string;
  /** An ephemeral container's target: it joins that container's PID namespace. */
  targetId?: string;
  /** The node-side file mounted at terminationMessagePath. */
  terminationMessageFile?: string;
}

export function containerConfig(i: ContainerConfigInput): ContainerConfig {
  const { pod, container: c } = i;
  const vars = new Map(i.env.map((e) => [e.key, e.value] as [string, string]));
  const mounts: Mount[] = [];
  for (const vm of c.volumeMounts ?? []) {
    const host = i.volumes.get(vm.name);
    if (!host) throw new MountError(vm.name, `unable to find volume "${vm.name}" for container ${c.name}`);
    mounts.push({
      container_path: vm.mountPath,
      host_path: vm.subPath ? join(host, expand(vm.subPath, vars)) : host,
      readonly: !!vm.readOnly,
      propagation: vm.mountPropagation === 'Bidirectional' ? 'PROPAGATION_BIDIRECTIONAL'
        : vm.mountPropagation === 'HostToContainer' ? 'PROPAGATION_HOST_TO_CONTAINER' : 'PROPAGATION_PRIVATE',
    });
  }
  if (i.hostsFile && !mounts.some((m) => m.container_path === '/etc/hosts')) {
    mounts.push({ container_path: '/etc/hosts', host_path: i.hostsFile, readonly: false });
  }
  const messagePath = c.terminationMessagePath ?? '/dev/termination-log';
  if (i.terminationMessageFile && messagePath) {
    mounts.push({ container_path: messagePath, host_path: i.terminationMessageFile, readonly: false });
  }
  const psc: PodSecurityContext = pod.spec?.securityContext ?? {};
  const sc: SecurityContext = c.securityContext ?? {};
  const runAsUser = sc.runAsUser ?? psc.runAsUser;
  const runAsGroup = sc.runAsGroup ?? psc.runAsGroup;
  const grace = pod.spec?.terminationGracePeriodSeconds ?? 30;
  return {
    metadata: { name: c.name, attempt: i.restartCount },
    image: { image: i.image },
    command: (c.command ?? []).map((s: string) => expand(s, vars)),
    args: (c.args ?? []).map((s: string) => expand(s, vars)),
    working_dir: c.workingDir ?? '',
    envs: i.env,
    mounts,
    labels: { ...podRuntimeLabels(pod), [CONTAINER_NAME_LABEL]: c.name },
    annotations: {
      [CONTAINER_HASH_ANNOTATION]: containerHash(c),
      [RESTART_COUNT_ANNOTATION]: String(i.restartCount),
      [TERMINATION_MESSAGE_PATH_ANNOTATION]: messagePath,
      [TERMINATION_MESSAGE_POLICY_ANNOTATION]: c.terminationMessagePolicy ?? 'File',
      [GRACE_PERIOD_ANNOTATION]: String(grace),
      ...(i.init ? { [INIT_CONTAINER_ANNOTATION]: 'true' } : {}),
    },
    log_path: containerLogPath(c.name, i.restartCount),
    stdin: !!c.stdin,
    stdin_once: !!c.stdinOnce,
    tty: !!c.tty,
    linux: {
      resources: linuxResources(c),
      security_context: {
        privileged: !!sc.privileged,
        readonly_rootfs: !!sc.readOnlyRootFilesystem,
        ...(typeof runAsUser === 'number' ? { run_as_user: { value: runAsUser } } : {}),
        ...(typeof runAsGroup === 'number' ? { run_as_group: { value: runAsGroup } } : {}),
        ...(sc.allowPrivilegeEscalation === false ? { no_new_privs: true } : {}),
        capabilities: {
          add_capabilities: (sc.capabilities?.add ?? []) as string[],
          drop_capabilities: (sc.capabilities?.drop ?? []) as string[],
        },
        supplemental_groups: [...(psc.supplementalGroups ?? []), ...(typeof psc.fsGroup === 'number' ? [psc.fsGroup] : [])],
        namespace_options: {
          network: pod.spec?.hostNetwork ? 'NODE' : 'POD',
          pid: pod.spec?.hostPID ? 'NODE' : pod.spec?.shareProcessNamespace ? 'POD' : i.targetId ? 'TARGET' : 'CONTAINER',
          ipc: pod.spec?.hostIPC ? 'NODE' : 'POD',
          ...(i.targetId && !pod.spec?.hostPID && !pod.spec?.shareProcessNamespace ? { target_id: i.targetId } : {}),
        },
      },
    },
  };
}
