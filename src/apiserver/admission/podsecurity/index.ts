// The PodSecurity admission plugin (upstream k8s.io/pod-security-admission): a namespace's
// `pod-security.kubernetes.io/enforce|warn|audit` labels (with `-version`) name a level —
// privileged, baseline or restricted. A pod that violates the enforce level is refused with
// upstream's message; one that violates the warn level gets a warning, as do workload
// templates (Deployments, ReplicaSets, …), which are never refused. Audit annotations need
// audit logging, which capstan does not have; exemptions are not configurable.
import type { Fields, KubeObject } from '../../../api/object.js';
import { isDeepStrictEqual } from 'node:util';
import { admissionForbidden, type AdmissionAttributes, type AdmissionPlugin } from '../../admission.js';
import type { GenericRegistry } from '../../registry/index.js';
import { describe, violations, type Level } from './checks.js';

const PREFIX = 'pod-security.kubernetes.io/';
const levels: Level[] = ['privileged', 'baseline', 'restricted'];

export interface LevelVersion { level: Level; version: string }

/** A mode's level from the namespace labels; an unreadable one is restricted:latest, as upstream fails closed. */
export function levelFor(labels: Record<string, string>, mode: 'enforce' | 'warn' | 'audit'): LevelVersion {
  const level = labels[`${PREFIX}${mode}`];
  const version = labels[`${PREFIX}${mode}-version`] ?? 'latest';
  if (level === undefined) return { level: 'privileged', version: 'latest' };
  if (!levels.includes(level as Level) || !(version === 'latest' || /^v1\.(0|[1-9]\d*)$/.test(version))) return { level: 'restricted', version: 'latest' };
  return { level: level as Level, version };
}

/** Where a workload resource keeps its pod template. */
const templates: Record<string, (o: KubeObject) => Fields | undefined> = {
  '/podtemplates': (o) => o.template,
  '/replicationcontrollers': (o) => o.spec?.template,
  'apps/deployments': (o) => o.spec?.template,
  'apps/replicasets': (o) => o.spec?.template,
  'apps/statefulsets': (o) => o.spec?.template,
  'apps/daemonsets': (o) => o.spec?.template,
  'batch/jobs': (o) => o.spec?.template,
  'batch/cronjobs': (o) => o.spec?.jobTemplate?.spec?.template,
};

/** Images aside, whether an update changed the pod spec (upstream lets image-only updates through). */
function specChanged(a: AdmissionAttributes): boolean {
  const strip = (spec: Fields | undefined) => {
    const copy = structuredClone(spec ?? {});
    for (const list of ['containers', 'initContainers', 'ephemeralContainers']) for (const c of copy[list] ?? []) delete c.image;
    return copy;
  };
  return !isDeepStrictEqual(strip(a.object?.spec), strip(a.oldObject?.spec));
}

const label = (lv: LevelVersion): string => `${lv.level}:${lv.version}`;

export function podSecurity(namespaces: GenericRegistry): AdmissionPlugin {
  return {
    name: 'PodSecurity',
    async validate(a) {
      if (a.operation !== 'CREATE' && a.operation !== 'UPDATE') return;
      const key = `${a.info.group}/${a.info.resource}`;
      const isPod = key === '/pods' && (!a.info.subresource || a.info.subresource === 'ephemeralcontainers');
      const template = templates[key];
      if (!isPod && (!template || a.info.subresource) || !a.object || !a.info.namespace) return;
      if (isPod && a.operation === 'UPDATE' && !specChanged(a)) return;
      const ns = await namespaces.get(undefined, a.info.namespace);
      const nsLabels = (ns.metadata.labels ?? {}) as Record<string, string>;
      const enforce = levelFor(nsLabels, 'enforce'), warn = levelFor(nsLabels, 'warn');
      const pod = isPod ? a.object : template!(a.object);
      const spec = pod?.spec, meta = pod?.metadata ?? {};
      if (!spec) return;
      if (isPod) {
        const denied = violations(enforce.level, spec, meta);
        if (denied.length) throw admissionForbidden(a, `violates PodSecurity "${label(enforce)}": ${describe(denied)}`);
      }
      // A workload is warned at the enforce level too: its pods would be refused.
      const warnAt = isPod ? [warn] : [enforce, warn];
      const seen = new Set<string>();
      for (const lv of warnAt) {
        if (seen.has(label(lv)) || (isPod && label(lv) === label(enforce))) continue;
        seen.add(label(lv));
        const found = violations(lv.level, spec, meta);
        if (found.length) a.warnings?.push(`would violate PodSecurity "${label(lv)}": ${describe(found)}`);
      }
    },
  };
}
