// Pod volumes on the node's disk, under <root>/pods/<uid>/volumes/<plugin>/<name>:
// emptyDir, hostPath, persistentVolumeClaim (the bound hostPath/local volume's own path), and
// the ones whose files come from the API — configMap, secret, downwardAPI and projected (configMap, secret, downwardAPI, serviceAccountToken sources).
// Every volume is set up with asynchronous fs calls (each pod's start shares the event loop).
// The API-fed ones are rewritten on every sync through the atomic writer (a `..data` link
// swap), so updates reach running containers whole (the directory is bind-mounted).
import { chmod, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { dirname, join } from 'node:path';
import type { TokenRequest } from 'kubernetes-types/authentication/v1.js';
import type { KeyToPath, ProjectedVolumeSource } from 'kubernetes-types/core/v1.js';
import type { ObjectSource } from './env.js';
import type { ConfigMap, Pod, Secret } from '../api/kinds.js';
import { writePayload, type FileProjection, type Payload } from './atomic-writer.js';
import { downwardPayload, type DownwardFacts } from './downward-api.js';
import { ANN_PROVISIONED_BY, LOCAL_PATH_PROVISIONER } from '../api/storage/annotations.js';

/** A volume that cannot be set up yet (event FailedMount). */
export class MountError extends Error {
  /** `event`: the whole FailedMount message, when it is not MountVolume.SetUp's. */
  constructor(readonly volume: string, message: string, readonly event?: string) {
    super(message);
  }
}

export const podDir = (root: string, uid: string) => join(root, 'pods', uid);
export const volumesDir = (root: string, uid: string) => join(podDir(root, uid), 'volumes');

/** The files of a configMap/secret: every key, or the items (a missing key is an error
 *  unless the source is optional). */
function keyFiles(data: Record<string, Buffer>, items: KeyToPath[] | undefined, defaultMode: number, what: 'configmap' | 'secret', optional: boolean): [string, FileProjection][] {
  if (!items?.length) return Object.entries(data).map(([k, v]) => [k, { content: v, mode: defaultMode }]);
  const out: [string, FileProjection][] = [];
  for (const it of items) {
    const content = data[it.key];
    if (!content) {
      if (optional) continue;
      throw new Error(what === 'configmap' ? `configmap references non-existent config key: ${it.key}` : `references non-existent secret key: ${it.key}`);
    }
    out.push([it.path, { content, mode: typeof it.mode === 'number' ? it.mode : defaultMode }]);
  }
  return out;
}

const configMapData = (cm: ConfigMap | undefined): Record<string, Buffer> => {
  const data: Record<string, Buffer> = {};
  for (const [k, val] of Object.entries(cm?.data ?? {})) data[k] = Buffer.from(val);
  for (const [k, val] of Object.entries(cm?.binaryData ?? {})) data[k] = Buffer.from(val, 'base64');
  return data;
};

const secretData = (s: Secret | undefined): Record<string, Buffer> => {
  const data: Record<string, Buffer> = {};
  for (const [k, val] of Object.entries(s?.data ?? {})) data[k] = Buffer.from(val, 'base64');
  return data;
};

/** Where service account tokens come from (the kubelet's TokenManager). */
export interface TokenSource {
  getServiceAccountToken(namespace: string, name: string, request: TokenRequest): Promise<TokenRequest>;
}

export interface VolumeContext {
  root: string;
  pod: Pod;
  objects: ObjectSource;
  /** Needed by serviceAccountToken projections. */
  tokens?: TokenSource;
  /** Node name and allocatable, for downward API items. */
  facts?: DownwardFacts;
}

/** A projected volume's files, source by source, as upstream's projected plugin collects them. */
async function projectedPayload(ctx: VolumeContext, src: ProjectedVolumeSource): Promise<Payload> {
  const pod = ctx.pod;
  const ns = pod.metadata.namespace ?? 'default';
  const mode = src.defaultMode ?? 0o644;
  const payload: Payload = new Map();
  const add = (files: [string, FileProjection][]) => { for (const [p, f] of files) payload.set(p, f); };
  for (const s of src.sources ?? []) {
    if (s.configMap) {
      const cm = await ctx.objects.configMap(ns, s.configMap.name!);
      if (!cm) {
        if (s.configMap.optional) continue;
        throw new Error(`configmap "${s.configMap.name}" not found`);
      }
      add(keyFiles(configMapData(cm), s.configMap.items, mode, 'configmap', !!s.configMap.optional));
    } else if (s.secret) {
      const secret = await ctx.objects.secret(ns, s.secret.name!);
      if (!secret) {
        if (s.secret.optional) continue;
        throw new Error(`secret "${s.secret.name}" not found`);
      }
      add(keyFiles(secretData(secret), s.secret.items, mode, 'secret', !!s.secret.optional));
    } else if (s.downwardAPI) {
      add(downwardPayload(pod, s.downwardAPI.items, mode, ctx.facts ?? { nodeName: pod.spec?.nodeName ?? '', allocatable: { cpu: 0, memory: 0 } }));
    } else if (s.serviceAccountToken) {
      const tp = s.serviceAccountToken;
      if (!ctx.tokens) throw new Error('the kubelet has no token source for serviceAccountToken projections');
      const tr = await ctx.tokens.getServiceAccountToken(ns, pod.spec?.serviceAccountName ?? 'default', {
        spec: {
          audiences: tp.audience ? [tp.audience] : [],
          expirationSeconds: tp.expirationSeconds ?? 3600,
          boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name, uid: pod.metadata.uid },
        },
      });
      payload.set(tp.path, { content: Buffer.from(tr.status?.token ?? ''), mode });
    }
  }
  return payload;
}

/** Sets up every volume of the pod; returns volume name → host path. Throws MountError. */
export async function setUpVolumes(ctx: VolumeContext): Promise<Map<string, string>> {
  const uid = ctx.pod.metadata.uid as string;
  const ns = ctx.pod.metadata.namespace ?? 'default';
  const base = volumesDir(ctx.root, uid);
  const out = new Map<string, string>();
  for (const v of ctx.pod.spec?.volumes ?? []) {
    const name: string = v.name;
    try {
      if (v.emptyDir) {
        const dir = join(base, 'kubernetes.io~empty-dir', name);
        if (!(await statOf(dir))) {
          await mkdir(dir, { recursive: true });
          await chmod(dir, 0o777);
        }
        out.set(name, dir);
      } else if (v.configMap) {
        const dir = join(base, 'kubernetes.io~configmap', name);
        const cm = await ctx.objects.configMap(ns, v.configMap.name!);
        if (!cm && !v.configMap.optional) throw new MountError(name, `configmap "${v.configMap.name}" not found`);
        await writePayload(dir, new Map(keyFiles(configMapData(cm), v.configMap.items, v.configMap.defaultMode ?? 0o644, 'configmap', !!v.configMap.optional)));
        out.set(name, dir);
      } else if (v.secret) {
        const dir = join(base, 'kubernetes.io~secret', name);
        const s = await ctx.objects.secret(ns, v.secret.secretName!);
        if (!s && !v.secret.optional) throw new MountError(name, `secret "${v.secret.secretName}" not found`);
        await writePayload(dir, new Map(keyFiles(secretData(s), v.secret.items, v.secret.defaultMode ?? 0o644, 'secret', !!v.secret.optional)));
        out.set(name, dir);
      } else if (v.downwardAPI) {
        const dir = join(base, 'kubernetes.io~downward-api', name);
        const facts = ctx.facts ?? { nodeName: ctx.pod.spec?.nodeName ?? '', allocatable: { cpu: 0, memory: 0 } };
        await writePayload(dir, new Map(downwardPayload(ctx.pod, v.downwardAPI.items, v.downwardAPI.defaultMode ?? 0o644, facts)));
        out.set(name, dir);
      } else if (v.projected) {
        const dir = join(base, 'kubernetes.io~projected', name);
        await writePayload(dir, await projectedPayload(ctx, v.projected));
        out.set(name, dir);
      } else if (v.hostPath) {
        out.set(name, await hostPath(name, v.hostPath.path, v.hostPath.type ?? ''));
      } else if (v.persistentVolumeClaim) {
        out.set(name, await claimPath(ctx, name, v.persistentVolumeClaim.claimName));
      } else {
        throw new MountError(name, `volume type not supported by capstan's kubelet: ${Object.keys(v).filter((k) => k !== 'name').join(',')}`);
      }
    } catch (e) {
      if (e instanceof MountError) throw e;
      throw new MountError(name, (e as Error).message);
    }
  }
  return out;
}

/** The path's stat, or undefined when nothing is there. */
async function statOf(path: string): Promise<Stats | undefined> {
  try {
    return await stat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

// Asynchronous: the kubelet shares its event loop (in `capstan up`, the API server's too)
// with every other pod's start, and a hostPath may sit on a slow disk.
async function hostPath(volume: string, path: string, type: string, dirMode = 0o755): Promise<string> {
  if (type === '') return path;
  const st = await statOf(path);
  if (type === 'DirectoryOrCreate' && !st) {
    await mkdir(path, { recursive: true });
    await chmod(path, dirMode);
  } else if (type === 'FileOrCreate' && !st) {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, '', { mode: 0o644, flag: 'wx' }).catch((e: NodeJS.ErrnoException) => { if (e.code !== 'EEXIST') throw e; });
  } else if (type === 'Directory' && !st?.isDirectory()) {
    throw new MountError(volume, `hostPath type check failed: ${path} is not a directory`);
  } else if (type === 'File' && !st?.isFile()) {
    throw new MountError(volume, `hostPath type check failed: ${path} is not a file`);
  }
  return path;
}

/**
 * The node path of a claim's volume: the claim must be bound (else the pod waits, with the
 * volume manager's FailedMount wording) and its volume a hostPath or local one on this node.
 * A local-path provisioner's directory is created world-writable, as rancher's helper does.
 */
async function claimPath(ctx: VolumeContext, volume: string, claimName: string): Promise<string> {
  const ns = ctx.pod.metadata.namespace ?? 'default';
  const notReady = (why: string) => new MountError(volume, why,
    `Unable to attach or mount volumes: unmounted volumes=[${volume}], unattached volumes=[${volume}], failed to process volumes=[${volume}]: error processing PVC ${ns}/${claimName}: ${why}`);
  if (!ctx.objects.claim || !ctx.objects.volume) throw new MountError(volume, 'the kubelet has no source of PersistentVolumeClaims');
  const claim = await ctx.objects.claim(ns, claimName);
  if (!claim) throw notReady(`failed to fetch PVC from API server: persistentvolumeclaims "${claimName}" not found`);
  const pvName = claim.spec?.volumeName;
  if (!pvName || claim.status?.phase !== 'Bound') throw notReady('PVC is not bound');
  const pv = await ctx.objects.volume(pvName);
  if (!pv) throw notReady(`failed to fetch PV ${pvName} from API server: persistentvolumes "${pvName}" not found`);
  if (pv.spec?.claimRef?.uid !== claim.metadata.uid) throw notReady(`found PV object ${pvName} but it has a ClaimRef that points to PVC ${pv.spec?.claimRef?.namespace}/${pv.spec?.claimRef?.name}, not ${ns}/${claimName}`);
  if (pv.spec?.hostPath) {
    const provisioned = pv.metadata.annotations?.[ANN_PROVISIONED_BY] === LOCAL_PATH_PROVISIONER;
    return hostPath(volume, pv.spec.hostPath.path, pv.spec.hostPath.type ?? '', provisioned ? 0o777 : 0o755);
  }
  if (pv.spec?.local) {
    const path = pv.spec.local.path;
    if (!(await statOf(path))) throw new MountError(volume, `path "${path}" does not exist`);
    return path;
  }
  throw new MountError(volume, `volume type of PersistentVolume ${pvName} not supported by capstan's kubelet: ${Object.keys(pv.spec ?? {}).filter((k) => ['nfs', 'csi', 'iscsi', 'rbd', 'cephfs', 'fc'].includes(k)).join(',') || 'unknown'}`);
}

/** Removes the pod's directory (volumes, hosts file) once its containers are gone. */
export async function removePodDir(root: string, uid: string): Promise<void> {
  await rm(podDir(root, uid), { recursive: true, force: true });
}
