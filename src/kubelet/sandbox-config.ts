// The CRI PodSandboxConfig for a pod: name/uid/attempt, hostname, DNS from dnsPolicy and
// dnsConfig, port mappings, labels naming the pod, log directory, cgroup parent, and the
// pod-level security context.
import { readFileSync } from 'node:fs';
import type { DNSConfig, PodSandboxConfig, PortMapping } from '../../cri/index.js';
import { CONFIG_SOURCE_ANNOTATION, MANAGED_LABEL, MANAGED_VALUE, POD_NAME_LABEL, POD_NAMESPACE_LABEL, POD_UID_LABEL, podLogDirectory } from './labels.js';
import { podCgroupParent } from './pod-spec.js';
import { fallbacks } from '../log/fallback.js';
import type { Pod } from '../api/kinds.js';
import type { PodDNSConfig, PodSecurityContext } from 'kubernetes-types/core/v1.js';

export interface SandboxSettings {
  clusterDNS: string[];
  clusterDomain: string;
  /** The node's resolv.conf for dnsPolicy Default. */
  resolvConf: string;
  logRoot: string;
  cgroupRoot: string;
}

export function parseResolvConf(text: string): DNSConfig {
  const servers: string[] = [], searches: string[] = [], options: string[] = [];
  for (const raw of text.split('\n')) {
    const [key, ...rest] = raw.replace(/[#;].*$/, '').trim().split(/\s+/);
    if (key === 'nameserver' && rest[0]) servers.push(rest[0]);
    else if (key === 'search') searches.splice(0, searches.length, ...rest);
    else if (key === 'options') options.push(...rest);
  }
  return { servers, searches, options };
}

const fallback = fallbacks('kubelet');

function readResolvConf(path: string): DNSConfig {
  try {
    return parseResolvConf(readFileSync(path, 'utf8'));
  } catch (e) {
    fallback('resolv-conf-unreadable-pod-dns-empty', { error: e, path });
    return { servers: [], searches: [], options: [] };
  }
}

/** DNS for the pod, as the kubelet computes it from dnsPolicy and dnsConfig. */
export function podDNSConfig(pod: Pod, s: Pick<SandboxSettings, 'clusterDNS' | 'clusterDomain' | 'resolvConf'>): DNSConfig {
  const ns = pod.metadata.namespace ?? 'default';
  let policy: string = pod.spec?.dnsPolicy ?? 'ClusterFirst';
  if (policy === 'ClusterFirst' && pod.spec?.hostNetwork) policy = 'Default';
  if (policy === 'ClusterFirstWithHostNet') policy = 'ClusterFirst';
  let base: DNSConfig;
  if (policy === 'None') base = { servers: [], searches: [], options: [] };
  else if (policy === 'Default' || s.clusterDNS.length === 0) base = readResolvConf(s.resolvConf);
  else {
    const d = s.clusterDomain;
    base = { servers: [...s.clusterDNS], searches: [`${ns}.svc.${d}`, `svc.${d}`, d], options: ['ndots:5'] };
  }
  const extra: PodDNSConfig = pod.spec?.dnsConfig ?? {};
  const servers = [...new Set([...(base.servers ?? []), ...(extra.nameservers ?? [])])];
  const searches = [...new Set([...(base.searches ?? []), ...(extra.searches ?? [])])];
  const opts = new Map<string, string>();
  for (const o of base.options ?? []) opts.set(o.split(':')[0], o);
  for (const o of extra.options ?? []) opts.set(o.name!, o.value !== undefined ? `${o.name}:${o.value}` : o.name!);
  return { servers: servers.slice(0, 3), searches: searches.slice(0, 32), options: [...opts.values()] };
}

export function portMappings(pod: Pod): PortMapping[] {
  const out: PortMapping[] = [];
  for (const c of pod.spec?.containers ?? []) {
    for (const p of c.ports ?? []) {
      out.push({
        protocol: (p.protocol ?? 'TCP') as PortMapping['protocol'], container_port: p.containerPort,
        host_port: p.hostPort ?? 0, host_ip: p.hostIP ?? '',
      });
    }
  }
  return out;
}

/** The labels that name a pod on its runtime objects (plus the pod's own labels on the sandbox). */
export function podRuntimeLabels(pod: Pod): Record<string, string> {
  return {
    [POD_NAME_LABEL]: pod.metadata.name as string,
    [POD_NAMESPACE_LABEL]: pod.metadata.namespace ?? 'default',
    [POD_UID_LABEL]: pod.metadata.uid as string,
    [MANAGED_LABEL]: MANAGED_VALUE,
  };
}

export function sandboxConfig(pod: Pod, attempt: number, s: SandboxSettings): PodSandboxConfig {
  const ns = pod.metadata.namespace ?? 'default';
  const sc: PodSecurityContext = pod.spec?.securityContext ?? {};
  const hostname = (pod.spec?.hostname ?? pod.metadata.name as string).slice(0, 63);
  return {
    metadata: { name: pod.metadata.name as string, uid: pod.metadata.uid as string, namespace: ns, attempt },
    hostname: pod.spec?.hostNetwork ? undefined : hostname,
    log_directory: podLogDirectory(s.logRoot, ns, pod.metadata.name as string, pod.metadata.uid as string),
    dns_config: podDNSConfig(pod, s),
    port_mappings: portMappings(pod),
    labels: { ...(pod.metadata.labels ?? {}), ...podRuntimeLabels(pod) },
    annotations: { ...(pod.metadata.annotations ?? {}), [CONFIG_SOURCE_ANNOTATION]: pod.metadata.annotations?.[CONFIG_SOURCE_ANNOTATION] ?? 'api' },
    linux: {
      cgroup_parent: podCgroupParent(s.cgroupRoot, pod),
      security_context: {
        namespace_options: {
          network: pod.spec?.hostNetwork ? 'NODE' : 'POD',
          pid: pod.spec?.hostPID ? 'NODE' : pod.spec?.shareProcessNamespace ? 'POD' : 'CONTAINER',
          ipc: pod.spec?.hostIPC ? 'NODE' : 'POD',
        },
        ...(typeof sc.runAsUser === 'number' ? { run_as_user: { value: sc.runAsUser } } : {}),
        ...(typeof sc.runAsGroup === 'number' ? { run_as_group: { value: sc.runAsGroup } } : {}),
        supplemental_groups: [...(sc.supplementalGroups ?? []), ...(typeof sc.fsGroup === 'number' ? [sc.fsGroup] : [])],
      },
      sysctls: Object.fromEntries((sc.sysctls ?? []).map((x) => [x.name, x.value])),
    },
  };
}
