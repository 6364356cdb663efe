// The Pod Security Standards checks, after k8s.io/pod-security-admission/policy at its latest
// version (Windows hostProcess aside): each returns null or the reason and detail upstream prints. The baseline checks
// come first, then the restricted ones, each set in upstream's check-ID order; at restricted,
// two baseline checks give way to their stricter versions.
import type { Fields } from '../../../api/object.js';

export type Level = 'privileged' | 'baseline' | 'restricted';
export interface Violation { reason: string; detail: string }
type Check = { id: string; level: Level; overrides?: string; run(spec: Fields, meta: Fields): Violation | null };

interface Named { name: string; sc: Fields }

function containers(spec: Fields): Named[] {
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])]
    .map((c: Fields) => ({ name: c.name as string, sc: (c.securityContext ?? {}) as Fields }));
}

const quote = (names: string[]): string => names.map((n) => JSON.stringify(n)).join(', ');
const plural = (one: string, many: string, n: number): string => (n === 1 ? one : many);
const containerWord = (names: string[]): string => `${plural('container', 'containers', names.length)} ${quote(names)}`;

const defaultCapabilities = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);
const safeSysctls = new Set(['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.ip_unprivileged_port_start', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_local_reserved_ports', 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes']);
const restrictedVolumeTypes = new Set(['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret']);

/** `pod and containers "a", "b"`: who set a forbidden value, as upstream joins them. */
function setters(pod: boolean, names: string[]): string {
  return [...(pod ? ['pod'] : []), ...(names.length ? [containerWord(names)] : [])].join(' and ');
}

function addedCapabilities(sc: Fields): string[] {
  return (sc.capabilities?.add ?? []) as string[];
}

const seLinuxTypes = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']);
const APPARMOR_ANNOTATION = 'container.apparmor.security.beta.kubernetes.io/';

const baseline: Check[] = [
  {
    id: 'appArmorProfile', level: 'baseline', run(spec, meta) {
      const ok = (t: unknown) => t === 'RuntimeDefault' || t === 'Localhost';
      const values = new Set<string>();
      const podBad = spec.securityContext?.appArmorProfile && !ok(spec.securityContext.appArmorProfile.type);
      if (podBad) values.add(spec.securityContext.appArmorProfile.type);
      const bad = containers(spec).filter((c) => c.sc.appArmorProfile && !ok(c.sc.appArmorProfile.type));
      for (const c of bad) values.add(c.sc.appArmorProfile.type);
      const annotations = Object.entries((meta.annotations ?? {}) as Record<string, string>)
        .filter(([k, v]) => k.startsWith(APPARMOR_ANNOTATION) && v !== 'runtime/default' && !v.startsWith('localhost/'))
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`).sort();
      const who = [...(podBad ? ['pod'] : []), ...(bad.length ? [containerWord(bad.map((c) => c.name))] : []), ...(annotations.length ? [plural('annotation', 'annotations', annotations.length)] : [])];
      if (!who.length) return null;
      const list = [...[...values].sort(), ...annotations];
      return { reason: plural('forbidden AppArmor profile', 'forbidden AppArmor profiles', list.length), detail: `${who.join(' and ')} must not set AppArmor profile type to ${quote(list)}` };
    },
  },
  {
    id: 'capabilities_baseline', level: 'baseline', run(spec) {
      const bad = containers(spec).filter((c) => addedCapabilities(c.sc).some((cap) => !defaultCapabilities.has(cap)));
      if (!bad.length) return null;
      const caps = [...new Set(bad.flatMap((c) => addedCapabilities(c.sc).filter((cap) => !defaultCapabilities.has(cap))))].sort();
      return { reason: 'non-default capabilities', detail: `${containerWord(bad.map((c) => c.name))} must not include ${quote(caps)} in securityContext.capabilities.add` };
    },
  },
  {
    id: 'hostNamespaces', level: 'baseline', run(spec) {
      const set = ['hostNetwork', 'hostPID', 'hostIPC'].filter((f) => spec[f] === true);
      return set.length ? { reason: 'host namespaces', detail: set.map((f) => `${f}=true`).join(', ') } : null;
    },
  },
  {
    id: 'hostPathVolumes', level: 'baseline', run(spec) {
      const vols = ((spec.volumes ?? []) as Fields[]).filter((v) => v.hostPath).map((v) => v.name as string);
      return vols.length ? { reason: 'hostPath volumes', detail: `${plural('volume', 'volumes', vols.length)} ${quote(vols)}` } : null;
    },
  },
  {
    id: 'hostPorts', level: 'baseline', run(spec) {
      const all = [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])] as Fields[];
      const bad = all.filter((c) => ((c.ports ?? []) as Fields[]).some((p) => p.hostPort));
      if (!bad.length) return null;
      const ports = [...new Set(bad.flatMap((c) => ((c.ports ?? []) as Fields[]).filter((p) => p.hostPort).map((p) => p.hostPort as number)))].sort((x, y) => x - y);
      return { reason: 'hostPort', detail: `${containerWord(bad.map((c) => c.name))} ${plural('uses', 'use', bad.length)} ${plural('hostPort', 'hostPorts', ports.length)} ${ports.join(', ')}` };
    },
  },
  {
    id: 'privileged', level: 'baseline', run(spec) {
      const bad = containers(spec).filter((c) => c.sc.privileged === true).map((c) => c.name);
      return bad.length ? { reason: 'privileged', detail: `${containerWord(bad)} must not set securityContext.privileged=true` } : null;
    },
  },
  {
    id: 'procMount', level: 'baseline', run(spec) {
      const bad = containers(spec).filter((c) => c.sc.procMount !== undefined && c.sc.procMount !== 'Default');
      if (!bad.length) return null;
      const values = [...new Set(bad.map((c) => c.sc.procMount as string))].sort();
      return { reason: 'procMount', detail: `${containerWord(bad.map((c) => c.name))} must not set securityContext.procMount to ${quote(values)}` };
    },
  },
  {
    id: 'seLinuxOptions', level: 'baseline', run(spec) {
      const types = new Set<string>();
      let user = false, role = false;
      const valid = (o: Fields | undefined) => {
        if (!o) return true;
        let ok = true;
        if (!seLinuxTypes.has(o.type ?? '')) { ok = false; types.add(o.type); }
        if (o.user) { ok = false; user = true; }
        if (o.role) { ok = false; role = true; }
        return ok;
      };
      const pod = !valid(spec.securityContext?.seLinuxOptions);
      const bad = containers(spec).filter((c) => !valid(c.sc.seLinuxOptions)).map((c) => c.name);
      if (!pod && !bad.length) return null;
      const what = [...(types.size ? [`${plural('type', 'types', types.size)} ${quote([...types].sort())}`] : []), ...(user ? ['user may not be set'] : []), ...(role ? ['role may not be set'] : [])];
      return { reason: 'seLinuxOptions', detail: `${setters(pod, bad)} set forbidden securityContext.seLinuxOptions: ${what.join('; ')}` };
    },
  },
  {
    id: 'seccompProfile_baseline', level: 'baseline', run(spec) {
      const pod = spec.securityContext?.seccompProfile?.type === 'Unconfined';
      const bad = containers(spec).filter((c) => c.sc.seccompProfile?.type === 'Unconfined').map((c) => c.name);
      return pod || bad.length ? { reason: 'seccompProfile', detail: `${setters(pod, bad)} must not set securityContext.seccompProfile.type to "Unconfined"` } : null;
    },
  },
  {
    id: 'sysctls', level: 'baseline', run(spec) {
      const bad = ((spec.securityContext?.sysctls ?? []) as Fields[]).map((s) => s.name as string).filter((n) => !safeSysctls.has(n));
      return bad.length ? { reason: 'forbidden sysctls', detail: bad.join(', ') } : null;
    },
  },
];

const restricted: Check[] = [
  {
    id: 'allowPrivilegeEscalation', level: 'restricted', run(spec) {
      const bad = containers(spec).filter((c) => c.sc.allowPrivilegeEscalation !== false).map((c) => c.name);
      return bad.length ? { reason: 'allowPrivilegeEscalation != false', detail: `${containerWord(bad)} must set securityContext.allowPrivilegeEscalation=false` } : null;
    },
  },
  {
    id: 'capabilities_restricted', level: 'restricted', overrides: 'capabilities_baseline', run(spec) {
      const all = containers(spec);
      const noDrop = all.filter((c) => !((c.sc.capabilities?.drop ?? []) as string[]).includes('ALL')).map((c) => c.name);
      const adding = all.filter((c) => addedCapabilities(c.sc).some((cap) => cap !== 'NET_BIND_SERVICE'));
      const details: string[] = [];
      if (noDrop.length) details.push(`${containerWord(noDrop)} must set securityContext.capabilities.drop=["ALL"]`);
      if (adding.length) {
        const caps = [...new Set(adding.flatMap((c) => addedCapabilities(c.sc).filter((cap) => cap !== 'NET_BIND_SERVICE')))].sort();
        details.push(`${containerWord(adding.map((c) => c.name))} must not include ${quote(caps)} in securityContext.capabilities.add`);
      }
      return details.length ? { reason: 'unrestricted capabilities', detail: details.join('; ') } : null;
    },
  },
  {
    id: 'restrictedVolumes', level: 'restricted', run(spec) {
      const bad: string[] = [], types = new Set<string>();
      for (const v of (spec.volumes ?? []) as Fields[]) {
        const type = Object.keys(v).find((k) => k !== 'name');
        if (type && !restrictedVolumeTypes.has(type)) { bad.push(v.name); types.add(type); }
      }
      if (!bad.length) return null;
      return { reason: 'restricted volume types', detail: `${plural('volume', 'volumes', bad.length)} ${quote(bad)} ${plural('uses', 'use', bad.length)} ${plural('restricted volume type', 'restricted volume types', types.size)} ${quote([...types].sort())}` };
    },
  },
  {
    id: 'runAsNonRoot', level: 'restricted', run(spec) {
      const podValue = spec.securityContext?.runAsNonRoot;
      const all = containers(spec);
      const explicit = all.filter((c) => c.sc.runAsNonRoot === false).map((c) => c.name);
      const implicit = podValue === true ? [] : all.filter((c) => c.sc.runAsNonRoot === undefined).map((c) => c.name);
      const details: string[] = [];
      if (podValue === false || explicit.length) details.push(`${setters(podValue === false, explicit)} must not set securityContext.runAsNonRoot=false`);
      if (implicit.length) details.push(`pod or ${containerWord(implicit)} must set securityContext.runAsNonRoot=true`);
      return details.length ? { reason: 'runAsNonRoot != true', detail: details.join('; ') } : null;
    },
  },
  {
    id: 'runAsUser', level: 'restricted', run(spec) {
      const pod = spec.securityContext?.runAsUser === 0;
      const bad = containers(spec).filter((c) => c.sc.runAsUser === 0).map((c) => c.name);
      return pod || bad.length ? { reason: 'runAsUser=0', detail: `${setters(pod, bad)} must not set runAsUser=0` } : null;
    },
  },
  {
    id: 'seccompProfile_restricted', level: 'restricted', overrides: 'seccompProfile_baseline', run(spec) {
      const ok = (t: unknown) => t === 'RuntimeDefault' || t === 'Localhost';
      const podType = spec.securityContext?.seccompProfile?.type;
      const podBad = podType !== undefined && !ok(podType);
      const values = new Set<string>(podBad ? [podType] : []);
      const all = containers(spec);
      const explicit = all.filter((c) => c.sc.seccompProfile?.type !== undefined && !ok(c.sc.seccompProfile.type));
      for (const c of explicit) values.add(c.sc.seccompProfile.type);
      const implicit = ok(podType) ? [] : all.filter((c) => c.sc.seccompProfile?.type === undefined).map((c) => c.name);
      const details: string[] = [];
      if (podBad || explicit.length) details.push(`${setters(podBad, explicit.map((c) => c.name))} must not set securityContext.seccompProfile.type to ${quote([...values].sort())}`);
      if (implicit.length) details.push(`pod or ${containerWord(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`);
      return details.length ? { reason: 'seccompProfile', detail: details.join('; ') } : null;
    },
  },
];

/** Every violation of a pod (spec, and metadata for the AppArmor annotations) at a level, in upstream's order. */
export function violations(level: Level, spec: Fields, meta: Fields = {}): Violation[] {
  if (level === 'privileged') return [];
  const checks = level === 'baseline' ? baseline : [...baseline, ...restricted];
  const overridden = new Set(checks.map((c) => c.overrides).filter(Boolean));
  return checks.filter((c) => !overridden.has(c.id)).map((c) => c.run(spec, meta)).filter((v): v is Violation => v !== null);
}

/** `allowPrivilegeEscalation != false (container "c" must set …), …`, as upstream joins them. */
export function describe(vs: Violation[]): string {
  return vs.map((v) => (v.detail ? `${v.reason} (${v.detail})` : v.reason)).join(', ');
}
