import type { Fields, KubeObject } from '../../../api/object.js';
import type { ResourceDef, StorageHooks } from '../types.js';
import { ageColumn, col, identityVersion, selectorText, specStrategy, statusStrategy } from '../common.js';
import { duplicate, invalidValue, isDNS1035Label, isDNS1123Label, notSupported, required, validateLabels, validatePort, type FieldError } from '../../../api/validation.js';
import { invalid } from '../../errors.js';
import { Allocator, AlreadyAllocatedError, OutOfRangeError, RangeFullError } from './allocator.js';

const types = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];
const protocols = ['TCP', 'UDP', 'SCTP'];


const usesClusterIP = (o: KubeObject) => o.spec?.type !== 'ExternalName' && o.spec?.clusterIP !== 'None';
const usesNodePorts = (o: KubeObject) => o.spec?.type === 'NodePort' || o.spec?.type === 'LoadBalancer';
const owner = (o: KubeObject) => `${o.metadata.namespace}/${o.metadata.name}`;

function nodePortsOf(o: KubeObject): number[] {
  return usesNodePorts(o) ? ((o.spec?.ports ?? []) as Fields[]).map((p) => p.nodePort).filter((p): p is number => typeof p === 'number' && p > 0) : [];
}

/** Allocation of ClusterIPs and NodePorts around storage writes, undone when a write fails. */
export function serviceHooks(ips: Allocator, ports: Allocator): StorageHooks {
  const fail = (o: KubeObject, field: string, value: unknown, message: string) =>
    invalid('Service', '', o.metadata.name as string, [invalidValue(field, value, message)]);

  async function claimIP(o: KubeObject): Promise<string | undefined> {
    if (!usesClusterIP(o)) return undefined;
    const requested = o.spec.clusterIP as string | undefined;
    try {
      if (requested) {
        await ips.allocate(requested, owner(o));
        return requested;
      }
      const ip = await ips.allocateNext(owner(o));
      o.spec.clusterIP = ip;
      o.spec.clusterIPs = [ip];
      return ip;
    } catch (e) {
      if (e instanceof OutOfRangeError) throw fail(o, 'spec.clusterIPs', requested, `failed to allocate IP ${requested}: the provided IP (${requested}) is not in the valid range. The range of valid IPs is ${ips.range.text}`);
      if (e instanceof AlreadyAllocatedError) throw fail(o, 'spec.clusterIPs', requested, `failed to allocate IP ${requested}: provided IP is already allocated`);
      if (e instanceof RangeFullError) throw fail(o, 'spec.clusterIPs', requested ?? '', `failed to allocate IP: range is full`);
      throw e;
    }
  }

  async function claimPorts(o: KubeObject, keep: Set<number>): Promise<number[]> {
    const claimed: number[] = [];
    if (!usesNodePorts(o)) return claimed;
    try {
      for (const [i, p] of ((o.spec.ports ?? []) as Fields[]).entries()) {
        if (p.nodePort && keep.has(p.nodePort)) continue;
        try {
          if (p.nodePort) await ports.allocate(String(p.nodePort), owner(o));
          else p.nodePort = Number(await ports.allocateNext(owner(o)));
          claimed.push(p.nodePort);
        } catch (e) {
          const field = `spec.ports[${i}].nodePort`;
          if (e instanceof OutOfRangeError) throw fail(o, field, p.nodePort, `provided port is not in the valid range. The range of valid ports is ${ports.range.text}`);
          if (e instanceof AlreadyAllocatedError) throw fail(o, field, p.nodePort, 'provided port is already allocated');
          if (e instanceof RangeFullError) throw fail(o, field, 0, 'failed to allocate a nodePort: range is full');
          throw e;
        }
      }
      return claimed;
    } catch (e) {
      for (const p of claimed) await ports.release(String(p));
      throw e;
    }
  }

  return {
    async beforeCreate(o) {
      const ip = await claimIP(o);
      try {
        await claimPorts(o, new Set());
      } catch (e) {
        if (ip) await ips.release(ip);
        throw e;
      }
    },
    async createFailed(o) {
      if (usesClusterIP(o) && o.spec.clusterIP) await ips.release(o.spec.clusterIP);
      for (const p of nodePortsOf(o)) await ports.release(String(p));
    },
    async beforeUpdate(o, old) {
      if (usesClusterIP(o) && !usesClusterIP(old)) await claimIP(o);
      const held = new Set(nodePortsOf(old));
      await claimPorts(o, held);
    },
    async updateFailed(o, old) {
      if (usesClusterIP(o) && !usesClusterIP(old) && o.spec.clusterIP) await ips.release(o.spec.clusterIP);
      const held = new Set(nodePortsOf(old));
      for (const p of nodePortsOf(o)) if (!held.has(p)) await ports.release(String(p));
    },
    async afterUpdate(o, old) {
      if (usesClusterIP(old) && !usesClusterIP(o) && old.spec.clusterIP) await ips.release(old.spec.clusterIP);
      const now = new Set(nodePortsOf(o));
      for (const p of nodePortsOf(old)) if (!now.has(p)) await ports.release(String(p));
    },
    async afterDelete(o) {
      if (usesClusterIP(o) && o.spec.clusterIP && o.spec.clusterIP !== 'None') await ips.release(o.spec.clusterIP);
      for (const p of nodePortsOf(o)) await ports.release(String(p));
    },
  };
}

function defaults(o: KubeObject): void {
  const s = o.spec ?? (o.spec = {});
  s.type ??= 'ClusterIP';
  s.sessionAffinity ??= 'None';
  if (s.sessionAffinity === 'ClientIP') s.sessionAffinityConfig ??= { clientIP: { timeoutSeconds: 10800 } };
  for (const p of (s.ports ?? []) as Fields[]) {
    p.protocol ??= 'TCP';
    if (s.type !== 'ExternalName') p.targetPort ??= p.port;
  }
  if (s.type !== 'ExternalName') {
    s.ipFamilies ??= ['IPv4'];
    s.ipFamilyPolicy ??= 'SingleStack';
    s.internalTrafficPolicy ??= 'Cluster';
    if (s.clusterIP && !s.clusterIPs) s.clusterIPs = [s.clusterIP];
    if (!s.clusterIP && s.clusterIPs?.length) s.clusterIP = s.clusterIPs[0];
  }
  if (s.type === 'NodePort' || s.type === 'LoadBalancer') s.externalTrafficPolicy ??= 'Cluster';
  if (s.type === 'LoadBalancer') s.allocateLoadBalancerNodePorts ??= true;
}

function validate(o: KubeObject): FieldError[] {
  const s = o.spec ?? {};
  const errs: FieldError[] = [];
  if (!types.includes(s.type)) errs.push(notSupported('spec.type', s.type, types));
  const ports = (s.ports ?? []) as Fields[];
  if (s.type === 'ExternalName') {
    if (!s.externalName) errs.push(required('spec.externalName'));
  } else if (!ports.length && s.clusterIP !== 'None') errs.push(required('spec.ports'));
  const names = new Set<string>();
  const keys = new Set<string>();
  ports.forEach((p, i) => {
    const f = `spec.ports[${i}]`;
    if (ports.length > 1 && !p.name) errs.push(required(`${f}.name`));
    if (p.name) {
      const e = isDNS1123Label(p.name);
      if (e) errs.push(invalidValue(`${f}.name`, p.name, e));
      if (names.has(p.name)) errs.push(duplicate(`${f}.name`, p.name));
      names.add(p.name);
    }
    errs.push(...validatePort(p.port, `${f}.port`));
    if (!protocols.includes(p.protocol)) errs.push(notSupported(`${f}.protocol`, p.protocol, protocols));
    const key = `${p.port}/${p.protocol}`;
    if (keys.has(key)) errs.push(duplicate(`${f}`, { port: p.port, protocol: p.protocol }));
    keys.add(key);
    if (typeof p.targetPort === 'number') errs.push(...validatePort(p.targetPort, `${f}.targetPort`));
    if (p.nodePort !== undefined && p.nodePort !== 0 && !(s.type === 'NodePort' || s.type === 'LoadBalancer')) {
      errs.push({ type: 'FieldValueForbidden', field: `${f}.nodePort`, message: 'may not be used when `type` is \'ClusterIP\'' });
    }
  });
  errs.push(...validateLabels(s.selector, 'spec.selector'));
  if (s.sessionAffinity && !['None', 'ClientIP'].includes(s.sessionAffinity)) errs.push(notSupported('spec.sessionAffinity', s.sessionAffinity, ['None', 'ClientIP']));
  const timeout = s.sessionAffinityConfig?.clientIP?.timeoutSeconds;
  if (timeout !== undefined && (timeout < 1 || timeout > 86400)) errs.push(invalidValue('spec.sessionAffinityConfig.clientIP.timeoutSeconds', timeout, 'must be greater than 0 and less than 86400'));
  for (const f of ['externalTrafficPolicy', 'internalTrafficPolicy']) {
    if (s[f] && !['Cluster', 'Local'].includes(s[f])) errs.push(notSupported(`spec.${f}`, s[f], ['Cluster', 'Local']));
  }
  return errs;
}

function validateUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  // Set once, a ClusterIP (or "None") stays until the Service becomes an ExternalName one.
  const a = old.spec?.clusterIP, b = o.spec?.clusterIP;
  if (a && old.spec?.type !== 'ExternalName' && o.spec?.type !== 'ExternalName' && b !== a) return [invalidValue('spec.clusterIPs[0]', b ?? '', 'may not change once set')];
  return [];
}

function portsText(o: KubeObject): string {
  const ports = (o.spec?.ports ?? []) as Fields[];
  if (!ports.length) return '<none>';
  return ports.map((p) => `${p.port}${p.nodePort ? `:${p.nodePort}` : ''}/${p.protocol}`).join(',');
}

function externalIP(o: KubeObject): string {
  const s = o.spec ?? {};
  if (s.type === 'ExternalName') return s.externalName ?? '<none>';
  const lb = ((o.status?.loadBalancer?.ingress ?? []) as Fields[]).map((i) => i.ip ?? i.hostname);
  const all = [...lb, ...(s.externalIPs ?? [])];
  if (all.length) return all.join(',');
  return s.type === 'LoadBalancer' ? '<pending>' : '<none>';
}

export function services(ips: Allocator, ports: Allocator): ResourceDef {
  return {
    group: '', resource: 'services', singular: 'service', kind: 'Service', listKind: 'ServiceList', namespaced: true,
    shortNames: ['svc'], categories: ['all'], returnDeletedObject: true,
    nameValidator: isDNS1035Label,
    versions: [identityVersion('v1', 'io.k8s.api.core.v1.Service')],
    storageVersion: 'v1',
    strategy: specStrategy({ initialStatus: () => ({ loadBalancer: {} }), defaults, validate, validateUpdate, prepareForUpdate(o, old) {
      // ClusterIP and NodePorts, once allocated, stay unless the update names others.
      // (A headless Service's "None" is kept the same way.)
      if (o.spec?.type !== 'ExternalName' && old.spec?.type !== 'ExternalName' && !o.spec?.clusterIP && old.spec?.clusterIP) {
        o.spec = { ...o.spec, clusterIP: old.spec.clusterIP, clusterIPs: old.spec.clusterIPs };
      }
      if (usesNodePorts(o) && usesNodePorts(old)) {
        for (const p of (o.spec.ports ?? []) as Fields[]) {
          if (p.nodePort) continue;
          const prev = ((old.spec.ports ?? []) as Fields[]).find((q) => q.port === p.port && (q.protocol ?? 'TCP') === (p.protocol ?? 'TCP'));
          if (prev?.nodePort) p.nodePort = prev.nodePort;
        }
      }
    } }),
    statusStrategy: statusStrategy(),
    hooks: serviceHooks(ips, ports),
    fieldLabels: (o) => ({ 'spec.clusterIP': o.spec?.clusterIP ?? '', 'spec.type': o.spec?.type ?? '' }),
    columns: [
      col('Type', 'The type of service.', (o) => o.spec?.type ?? ''),
      col('Cluster-IP', 'The cluster IP of the service.', (o) => o.spec?.clusterIP ?? '<none>'),
      col('External-IP', 'External IPs of the service.', externalIP),
      col('Port(s)', 'The ports of the service.', portsText),
      ageColumn,
      col('Selector', 'The label selector of the service.', (o) => selectorText(o.spec?.selector), 1),
    ],
  };
}
