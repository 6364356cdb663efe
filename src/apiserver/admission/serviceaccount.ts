// The ServiceAccount admission plugin, as upstream's: on Pod create the pod gets a service
// account (`default` when it names none) that must exist, the ServiceAccount's image pull
// secrets when it has none of its own, and — unless the pod or the ServiceAccount opts out —
// a projected `kube-api-access-xxxxx` volume (a bound token, the cluster CA, the namespace)
// mounted read-only at /var/run/secrets/kubernetes.io/serviceaccount in every container.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Fields, KubeObject } from '../../api/object.js';
import { forbidden, StatusError } from '../errors.js';
import type { GenericRegistry } from '../registry/index.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../admission.js';

export const defaultServiceAccountName = 'default';
export const tokenMountPath = '/var/run/secrets/kubernetes.io/serviceaccount';
export const tokenVolumePrefix = 'kube-api-access-';
/** serviceaccount.WarnOnlyBoundTokenExpirationSeconds: an hour and 7 s, so the server can
 *  tell the admission-made volume's tokens from ones a user asked for. */
export const defaultTokenExpirationSeconds = 3607;
export const rootCAConfigMap = 'kube-root-ca.crt';
const mirrorPodAnnotation = 'kubernetes.io/config.mirror';
const enforceMountableSecretsAnnotation = 'kubernetes.io/enforce-mountable-secrets';
const nameAlphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** names.SimpleNameGenerator: the base and five random characters. */
export function generateName(base: string, random: () => number = Math.random): string {
  let s = base;
  for (let i = 0; i < 5; i++) s += nameAlphabet[Math.floor(random() * nameAlphabet.length)];
  return s;
}

/** The projected volume source upstream's TokenVolumeSource() returns. */
export function tokenVolumeSource(): Fields {
  return {
    defaultMode: 0o644,
    sources: [
      { serviceAccountToken: { path: 'token', expirationSeconds: defaultTokenExpirationSeconds } },
      { configMap: { name: rootCAConfigMap, items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
  };
}

/** The pod's automountServiceAccountToken wins, then the ServiceAccount's; default true. */
export function shouldAutomount(sa: KubeObject, spec: Fields): boolean {
  if (typeof spec.automountServiceAccountToken === 'boolean') return spec.automountServiceAccountToken;
  if (typeof sa.automountServiceAccountToken === 'boolean') return sa.automountServiceAccountToken;
  return true;
}

/** Adds the token volume and its mount to every init container and container that has
 *  nothing mounted at the token path; reuses an existing kube-api-access-* volume. */
export function mountServiceAccountToken(spec: Fields, name: () => string = () => generateName(tokenVolumePrefix)): void {
  const existing = (spec.volumes ?? []).find((v: Fields) => typeof v.name === 'string' && v.name.startsWith(tokenVolumePrefix));
  const volumeName: string = existing?.name ?? name();
  let needed = false;
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])] as Fields[]) {
    if ((c.volumeMounts ?? []).some((m: Fields) => m.mountPath === tokenMountPath)) continue;
    c.volumeMounts = [...(c.volumeMounts ?? []), { name: volumeName, readOnly: true, mountPath: tokenMountPath }];
    needed = true;
  }
  if (!existing && needed) spec.volumes = [...(spec.volumes ?? []), { name: volumeName, projected: tokenVolumeSource() }];
}

export interface ServiceAccountAdmissionOptions {
  /** Waits between look-ups of a missing `default` (upstream: 100–200 ms, 10 attempts). */
  retryIntervalMs?: number;
  randomName?: () => string;
}

export function serviceAccountAdmission(serviceAccounts: GenericRegistry, o: ServiceAccountAdmissionOptions = {}): AdmissionPlugin {
  const interval = o.retryIntervalMs ?? 100 + Math.floor(Math.random() * 100);

  // `default` is made by the serviceaccount controller just after its namespace, so a pod
  // created right after the namespace waits for it a little, as upstream does.
  const lookUp = async (namespace: string, name: string): Promise<KubeObject> => {
    const attempts = name === defaultServiceAccountName ? 10 : 1;
    for (let i = 0; i < attempts; i++) {
      if (i) await sleep(interval);
      try {
        return await serviceAccounts.get(namespace, name);
      } catch (e) {
        if (!(e instanceof StatusError && e.code === 404)) throw e;
      }
    }
    throw new StatusError(404, 'NotFound', `serviceaccount "${name}" not found`, { name, kind: 'serviceaccount' });
  };

  const refuse = (a: AdmissionAttributes, why: string) => {
    const name = (a.object?.metadata.name as string | undefined) ?? a.info.name ?? '';
    return forbidden(`pods "${name}" is forbidden: ${why}`, { name, kind: 'pods' });
  };

  const serviceAccountOf = async (a: AdmissionAttributes, spec: Fields): Promise<KubeObject> => {
    const ns = a.info.namespace as string;
    try {
      return await lookUp(ns, spec.serviceAccountName);
    } catch (e) {
      throw refuse(a, `error looking up service account ${ns}/${spec.serviceAccountName}: ${(e as Error).message}`);
    }
  };

  const applies = (a: AdmissionAttributes) =>
    a.operation === 'CREATE' && a.info.resource === 'pods' && !a.info.subresource && a.registry.def.group === '' && a.object?.spec;

  const isMirror = (pod: KubeObject) => pod.metadata.annotations?.[mirrorPodAnnotation] !== undefined;

  return {
    name: 'ServiceAccount',
    async mutate(a) {
      if (!applies(a)) return;
      const pod = a.object!;
      if (isMirror(pod)) return;
      const spec = pod.spec as Fields;
      if (!spec.serviceAccountName) spec.serviceAccountName = defaultServiceAccountName;
      const sa = await serviceAccountOf(a, spec);
      if (shouldAutomount(sa, spec)) mountServiceAccountToken(spec, o.randomName);
      if (!spec.imagePullSecrets?.length && Array.isArray(sa.imagePullSecrets) && sa.imagePullSecrets.length) {
        spec.imagePullSecrets = sa.imagePullSecrets.map((s: Fields) => ({ name: s.name }));
      }
    },
    async validate(a) {
      if (!applies(a)) return;
      const pod = a.object!;
      const spec = pod.spec as Fields;
      if (isMirror(pod)) {
        if (spec.serviceAccountName) throw refuse(a, 'a mirror pod may not reference service accounts');
        if ((spec.volumes ?? []).some((v: Fields) => v.secret || (v.projected?.sources ?? []).some((s: Fields) => s.secret))) {
          throw refuse(a, 'a mirror pod may not reference secrets');
        }
        if ((spec.volumes ?? []).some((v: Fields) => (v.projected?.sources ?? []).some((s: Fields) => s.serviceAccountToken))) {
          throw refuse(a, 'a mirror pod may not use ServiceAccountToken volume projections');
        }
        return;
      }
      if (!spec.serviceAccountName) throw refuse(a, `no service account specified for pod ${a.info.namespace}/${pod.metadata.name ?? ''}`);
      const sa = await serviceAccountOf(a, spec);
      const enforce = /^(1|t|T|TRUE|true|True)$/.test(String(sa.metadata.annotations?.[enforceMountableSecretsAnnotation] ?? ''));
      if (enforce) {
        const why = mountableSecretViolation(sa, spec);
        if (why) throw refuse(a, why);
      }
    },
  };
}

/** With kubernetes.io/enforce-mountable-secrets, a pod may use only the secrets its
 *  ServiceAccount lists (volumes, env, envFrom, image pull secrets). */
function mountableSecretViolation(sa: KubeObject, spec: Fields): string | undefined {
  const saName = sa.metadata.name as string;
  const mountable = new Set(((sa.secrets ?? []) as Fields[]).map((s) => s.name));
  for (const v of spec.volumes ?? []) {
    if (v.secret && !mountable.has(v.secret.secretName)) {
      return `volume with secret.secretName="${v.secret.secretName}" is not allowed because service account ${saName} does not reference that secret`;
    }
  }
  for (const [list, what] of [[spec.initContainers, 'init container'], [spec.containers, 'container']] as const) {
    for (const c of (list ?? []) as Fields[]) {
      for (const e of c.env ?? []) {
        const ref = e.valueFrom?.secretKeyRef;
        if (ref && !mountable.has(ref.name)) return `${what} ${c.name} with envVar ${e.name} referencing secret.secretName="${ref.name}" is not allowed because service account ${saName} does not reference that secret`;
      }
      for (const f of c.envFrom ?? []) {
        if (f.secretRef && !mountable.has(f.secretRef.name)) return `${what} ${c.name} with envFrom referencing secret.secretName="${f.secretRef.name}" is not allowed because service account ${saName} does not reference that secret`;
      }
    }
  }
  const pull = new Set(((sa.imagePullSecrets ?? []) as Fields[]).map((s) => s.name));
  const refs = (spec.imagePullSecrets ?? []) as Fields[];
  for (let i = 0; i < refs.length; i++) {
    if (!pull.has(refs[i].name)) return `imagePullSecrets[${i}].name="${refs[i].name}" is not allowed because service account ${saName} does not reference that imagePullSecret`;
  }
  return undefined;
}
