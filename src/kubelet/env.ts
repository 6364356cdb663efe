// Container environment as Kubernetes builds it: envFrom first, then env in order (later
// wins), values with $(VAR) expansion against what came before, ConfigMap/Secret key refs,
// the downward API (fieldRef, resourceFieldRef), and last the Service variables no entry
// defined.
import { quantityValue } from '../util/index.js';
import type { ConfigMap, PersistentVolume, PersistentVolumeClaim, Pod, Secret } from '../api/kinds.js';
import type { Container, ResourceFieldSelector } from 'kubernetes-types/core/v1.js';

export interface ObjectSource {
  /** The object, or undefined when it does not exist; other failures throw. */
  configMap(namespace: string, name: string): Promise<ConfigMap | undefined>;
  secret(namespace: string, name: string): Promise<Secret | undefined>;
  /** Claims and their volumes, for persistentVolumeClaim volumes (absent: those cannot mount). */
  claim?(namespace: string, name: string): Promise<PersistentVolumeClaim | undefined>;
  volume?(name: string): Promise<PersistentVolume | undefined>;
}

/** A reason the container cannot be created yet (CreateContainerConfigError). */
export class ConfigError extends Error {}

export interface PodRuntimeFacts { podIP: string; podIPs: string[]; hostIP: string; nodeName: string }

/** Kubernetes' $(VAR) expansion: $(NAME) → value when NAME is defined, $$ → $, else kept. */
export function expand(input: string, vars: Pick<ReadonlyMap<string, string>, 'has' | 'get'>): string {
  let out = '';
  for (let i = 0; i < input.length; i++) {
    const ch = input[i];
    if (ch !== '$' || i + 1 >= input.length) { out += ch; continue; }
    const next = input[i + 1];
    if (next === '$') { out += '$'; i++; continue; }
    if (next === '(') {
      const end = input.indexOf(')', i + 2);
      if (end > 0) {
        const name = input.slice(i + 2, end);
        out += vars.has(name) ? vars.get(name) : input.slice(i, end + 1);
        i = end;
        continue;
      }
    }
    out += ch;
  }
  return out;
}

const decode = (secret: Secret, key: string): string | undefined => {
  const v = secret.data?.[key];
  if (typeof v === 'string') return Buffer.from(v, 'base64').toString('utf8');
  const s = secret.stringData?.[key];
  return typeof s === 'string' ? s : undefined;
};

/** The downward API value of `fieldPath` (metadata.name, status.podIP, metadata.labels['k'], ...). */
export function fieldRefValue(pod: Pod, fieldPath: string, facts: PodRuntimeFacts): string {
  const m = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(fieldPath);
  if (m) return pod.metadata[m[1] as 'labels' | 'annotations']?.[m[2]!] ?? '';
  const fmtMap = (o: Record<string, string> | undefined) =>
    Object.keys(o ?? {}).sort().map((k) => `${k}="${(o![k]).replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')}"`).join('\n');
  switch (fieldPath) {
    case 'metadata.name': return pod.metadata.name ?? '';
    case 'metadata.namespace': return pod.metadata.namespace ?? '';
    case 'metadata.uid': return pod.metadata.uid ?? '';
    case 'metadata.labels': return fmtMap(pod.metadata.labels);
    case 'metadata.annotations': return fmtMap(pod.metadata.annotations);
    case 'spec.nodeName': return pod.spec?.nodeName ?? facts.nodeName;
    case 'spec.serviceAccountName': return pod.spec?.serviceAccountName ?? '';
    case 'status.podIP': return facts.podIP;
    case 'status.podIPs': return facts.podIPs.join(',');
    case 'status.hostIP': return facts.hostIP;
    case 'status.hostIPs': return facts.hostIP;
    default: throw new ConfigError(`unsupported fieldPath: ${fieldPath}`);
  }
}

/** resourceFieldRef: limits.cpu, requests.memory, ... divided by the divisor (rounded up,
 *  as Kubernetes does); an absent cpu/memory limit reads as the node's allocatable. */
export function resourceFieldValue(container: Container, ref: ResourceFieldSelector, allocatable: { cpu: number; memory: number }): string {
  const [kind, res] = String(ref.resource ?? '').split('.');
  if (!['limits', 'requests'].includes(kind) || !res) throw new ConfigError(`unsupported resource: ${ref.resource}`);
  let v = quantityValue(container.resources?.[kind as 'limits' | 'requests']?.[res]);
  if (v === null) {
    if (kind === 'limits' && res === 'cpu') v = allocatable.cpu;
    else if (kind === 'limits' && res === 'memory') v = allocatable.memory;
    else v = 0;
  }
  const divisor = quantityValue(ref.divisor ?? (res === 'cpu' ? '1' : '1')) || 1;
  return String(Math.ceil(v / divisor - 1e-9));
}

export interface EnvContext {
  pod: Pod;
  container: Container;
  facts: PodRuntimeFacts;
  objects: ObjectSource;
  allocatable: { cpu: number; memory: number };
  /** The Service variables (service-env.ts): $(VAR) may name them; env and envFrom win over them. */
  serviceEnv?: ReadonlyMap<string, string>;
}

/** The container's environment in order. Throws ConfigError for a missing non-optional
 *  ConfigMap/Secret or key (Kubernetes' CreateContainerConfigError). */
export async function containerEnv(ctx: EnvContext): Promise<{ key: string; value: string }[]> {
  const ns = ctx.pod.metadata.namespace ?? 'default';
  const vars = new Map<string, string>();
  const services = ctx.serviceEnv ?? new Map<string, string>();
  const known = { has: (k: string) => vars.has(k) || services.has(k), get: (k: string) => vars.get(k) ?? services.get(k) };
  for (const from of ctx.container.envFrom ?? []) {
    const prefix: string = from.prefix ?? '';
    if (from.configMapRef) {
      const cm = await ctx.objects.configMap(ns, from.configMapRef.name!);
      if (!cm) {
        if (from.configMapRef.optional) continue;
        throw new ConfigError(`configmap "${from.configMapRef.name}" not found`);
      }
      for (const [k, v] of Object.entries((cm.data ?? {}) as Record<string, string>)) vars.set(prefix + k, v);
    } else if (from.secretRef) {
      const s = await ctx.objects.secret(ns, from.secretRef.name!);
      if (!s) {
        if (from.secretRef.optional) continue;
        throw new ConfigError(`secret "${from.secretRef.name}" not found`);
      }
      for (const k of Object.keys(s.data ?? {})) vars.set(prefix + k, decode(s, k) ?? '');
    }
  }
  for (const e of ctx.container.env ?? []) {
    const name: string = e.name;
    if (!e.valueFrom) {
      vars.set(name, expand(e.value ?? '', known));
      continue;
    }
    const vf = e.valueFrom;
    if (vf.fieldRef) vars.set(name, fieldRefValue(ctx.pod, vf.fieldRef.fieldPath, ctx.facts));
    else if (vf.resourceFieldRef) vars.set(name, resourceFieldValue(ctx.container, vf.resourceFieldRef, ctx.allocatable));
    else if (vf.configMapKeyRef) {
      const ref = vf.configMapKeyRef;
      const cm = await ctx.objects.configMap(ns, ref.name!);
      const v = cm?.data?.[ref.key];
      if (v === undefined) {
        if (ref.optional) continue;
        throw new ConfigError(cm ? `couldn't find key ${ref.key} in ConfigMap ${ns}/${ref.name}` : `configmap "${ref.name}" not found`);
      }
      vars.set(name, v);
    } else if (vf.secretKeyRef) {
      const ref = vf.secretKeyRef;
      const s = await ctx.objects.secret(ns, ref.name!);
      const v = s ? decode(s, ref.key) : undefined;
      if (v === undefined) {
        if (ref.optional) continue;
        throw new ConfigError(s ? `couldn't find key ${ref.key} in Secret ${ns}/${ref.name}` : `secret "${ref.name}" not found`);
      }
      vars.set(name, v);
    }
  }
  for (const [k, v] of services) if (!vars.has(k)) vars.set(k, v);
  return [...vars].map(([key, value]) => ({ key, value }));
}
