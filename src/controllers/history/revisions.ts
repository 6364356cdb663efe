// ControllerRevisions of a StatefulSet or DaemonSet, after upstream's controller/history: each
// distinct pod template is one immutable revision named <owner>-<hash>, numbered in the order
// the templates were last used. Going back to an old template renumbers that revision instead
// of creating a copy, which is how `kubectl rollout undo` shows up in `rollout history`.
import { isDeepStrictEqual } from 'node:util';
import type { ControllerRevision, KindObject } from '../../api/kinds.js';
import type { Fields } from '../../api/object.js';
import { isAlreadyExists, isNotFound, type ResourceAPI } from '../../client/index.js';
import { fnv32a, safeEncode } from '../deployment/hash.js';
import { pruneZero } from '../deployment/util.js';
import { controllerRef, newControllerRef } from '../replicaset/controller-ref.js';
import { stableStringify } from '../../util/index.js';

/** The label a revision (and, for DaemonSets, each pod) carries with the revision's hash. */
export const revisionHashLabel = 'controller-revision-hash';

/** What a revision stores: a strategic merge patch that puts the template back, as kubectl reads it. */
export function revisionData(template: unknown): Fields {
  return { spec: { template: { ...(structuredClone(template ?? {}) as Fields), $patch: 'replace' } } };
}

/** The pod template a revision holds. */
export function revisionTemplate(rev: ControllerRevision): Fields {
  const { $patch: _p, ...template } = ((rev.data as Fields | undefined)?.spec?.template ?? {}) as Fields;
  return template;
}

export function hashRevision(data: unknown, collisionCount?: number): string {
  let input = stableStringify(pruneZero(data) ?? {});
  if (collisionCount) input += `#${collisionCount}`;
  return safeEncode(String(fnv32a(input)));
}

/** `<prefix>-<hash>`, the prefix cut so the name stays a valid object name. */
export function revisionName(prefix: string, hash: string): string {
  return `${prefix.slice(0, 223)}-${hash}`;
}

export function sameData(a: ControllerRevision, data: unknown): boolean {
  return isDeepStrictEqual(pruneZero(a.data), pruneZero(data));
}

export function byRevision(a: ControllerRevision, b: ControllerRevision): number {
  return (a.revision ?? 0) - (b.revision ?? 0) || String(a.metadata.name).localeCompare(String(b.metadata.name));
}

export function nextRevisionNumber(revisions: ControllerRevision[]): number {
  return revisions.reduce((n, r) => Math.max(n, r.revision ?? 0), 0) + 1;
}

export interface Owner {
  obj: KindObject;
  apiVersion: string;
  kind: string;
  /** Labels of the revision: the template's, as upstream copies them. */
  labels: Record<string, string>;
}

/** A revision's name is taken by other data: the owner must bump its collisionCount and retry. */
export class HashCollisionError extends Error {}

/**
 * The revision holding `data`: an existing equal one (renumbered to be the newest when it is
 * not), else a new one. `revisions` are the owner's, sorted by byRevision.
 */
export async function ensureRevision(api: ResourceAPI<ControllerRevision>, owner: Owner, revisions: ControllerRevision[], data: Fields, collisionCount: number): Promise<ControllerRevision> {
  const equal = revisions.filter((r) => sameData(r, data));
  const next = nextRevisionNumber(revisions);
  if (equal.length) {
    const latest = equal[equal.length - 1];
    if (latest === revisions[revisions.length - 1]) return latest;
    return api.update({ ...latest, revision: next });
  }
  const hash = hashRevision(data, collisionCount);
  const rev: ControllerRevision = {
    apiVersion: 'apps/v1', kind: 'ControllerRevision',
    metadata: {
      name: revisionName(String(owner.obj.metadata.name), hash),
      namespace: owner.obj.metadata.namespace,
      labels: { ...owner.labels, [revisionHashLabel]: hash },
      ownerReferences: [newControllerRef(owner.obj, owner.apiVersion, owner.kind)],
    },
    data, revision: next,
  };
  try {
    return await api.create(owner.obj.metadata.namespace, rev);
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
    const existing = await api.get(owner.obj.metadata.namespace, rev.metadata.name as string);
    const ref = controllerRef(existing);
    // Our own revision our cache has not seen yet: the same data is the same revision.
    if (ref?.uid === owner.obj.metadata.uid && sameData(existing, data)) return existing;
    throw new HashCollisionError(`controller revision ${rev.metadata.name} exists with other data`);
  }
}

/** Deletes the oldest revisions beyond `limit` that no pod and neither status revision uses. */
export async function truncateHistory(api: ResourceAPI<ControllerRevision>, revisions: ControllerRevision[], live: Set<string>, limit: number): Promise<void> {
  const old = revisions.filter((r) => !live.has(r.metadata.name as string));
  const excess = old.length - Math.max(0, limit);
  for (const r of old.slice(0, Math.max(0, excess))) {
    try {
      await api.delete(r.metadata.namespace, r.metadata.name as string, { preconditions: { uid: r.metadata.uid } });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}

/**
 * The owner's update revision (the one of its current template) and all its revisions after
 * ensuring it, sorted. On a hash collision `bumpCollisionCount` gets the next count to write
 * into the owner's status, and the error is rethrown so the sync is retried with it.
 */
export async function updateRevision(
  api: ResourceAPI<ControllerRevision>, owner: Owner & { obj: KindObject & { spec?: { template?: unknown } } }, revisions: ControllerRevision[],
  collisionCount: number, bumpCollisionCount: (next: number) => Promise<void>,
): Promise<{ update: ControllerRevision; all: ControllerRevision[] }> {
  let update: ControllerRevision;
  try {
    update = await ensureRevision(api, owner, revisions, revisionData(owner.obj.spec?.template), collisionCount);
  } catch (e) {
    if (e instanceof HashCollisionError) await bumpCollisionCount(collisionCount + 1);
    throw e;
  }
  return { update, all: [...revisions.filter((r) => r.metadata.name !== update.metadata.name), update].sort(byRevision) };
}
