// The volume sources a hollow kubelet checks before it "starts" a pod: Secrets and
// ConfigMaps (also as projected sources) must exist, as the kubelet needs them to set up the
// volume (optional ones may be missing), and claims must be bound, as the kubelet waits for
// them. Other volume types need nothing from the API and always "mount".
import { isNotFound, type ResourceAPI } from '../client/index.js';
import type { PersistentVolumeClaim, Pod } from '../api/kinds.js';

export interface MissingVolume {
  volume: string;
  /** The kubelet's wording, e.g. `secret "db" not found`. */
  message: string;
  /** The whole FailedMount message, when it is not MountVolume.SetUp's (claims). */
  event?: string;
}

async function exists(api: ResourceAPI, namespace: string, name: string): Promise<boolean> {
  try {
    await api.get(namespace, name);
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}

/** Why the kubelet would wait for the claim, or undefined when it is bound. */
async function unboundClaim(claims: ResourceAPI<PersistentVolumeClaim>, namespace: string, name: string): Promise<string | undefined> {
  try {
    const claim = await claims.get(namespace, name);
    return claim.spec?.volumeName && claim.status?.phase === 'Bound' ? undefined : 'PVC is not bound';
  } catch (e) {
    if (isNotFound(e)) return `failed to fetch PVC from API server: persistentvolumeclaims "${name}" not found`;
    throw e;
  }
}

/** The first volume that cannot be set up because its Secret or ConfigMap is missing. */
export async function missingVolume(pod: Pod, secrets: ResourceAPI, configMaps: ResourceAPI, claims?: ResourceAPI<PersistentVolumeClaim>): Promise<MissingVolume | undefined> {
  const namespace = pod.metadata.namespace ?? 'default';
  for (const v of pod.spec?.volumes ?? []) {
    const claimName = v.persistentVolumeClaim?.claimName;
    if (claimName && claims) {
      const why = await unboundClaim(claims, namespace, claimName);
      if (why) {
        return {
          volume: v.name, message: why,
          event: `Unable to attach or mount volumes: unmounted volumes=[${v.name}], unattached volumes=[${v.name}], failed to process volumes=[${v.name}]: error processing PVC ${namespace}/${claimName}: ${why}`,
        };
      }
    }
    if (v.secret && !v.secret.optional && !(await exists(secrets, namespace, v.secret.secretName!))) {
      return { volume: v.name, message: `secret "${v.secret.secretName}" not found` };
    }
    if (v.configMap && !v.configMap.optional && !(await exists(configMaps, namespace, v.configMap.name!))) {
      return { volume: v.name, message: `configmap "${v.configMap.name}" not found` };
    }
    // A projected volume's sources (kube-api-access-* holds the kube-root-ca.crt ConfigMap).
    for (const s of v.projected?.sources ?? []) {
      if (s.secret && !s.secret.optional && !(await exists(secrets, namespace, s.secret.name!))) {
        return { volume: v.name, message: `secret "${s.secret.name}" not found` };
      }
      if (s.configMap && !s.configMap.optional && !(await exists(configMaps, namespace, s.configMap.name!))) {
        return { volume: v.name, message: `configmap "${s.configMap.name}" not found` };
      }
    }
  }
  return undefined;
}
