// Downward API volume files (downwardAPI volumes and projections): each item is a fieldRef
// (metadata.name/namespace/uid, labels, annotations, one label or annotation) or a
// resourceFieldRef of a named container, written with the item's mode or the default.
import type { DownwardAPIVolumeFile } from 'kubernetes-types/core/v1.js';
import type { Pod } from '../api/kinds.js';
import { fieldRefValue, resourceFieldValue } from './env.js';
import type { FileProjection } from './atomic-writer.js';

export interface DownwardFacts { nodeName: string; allocatable: { cpu: number; memory: number } }

/** The value of one item, as the kubelet's downwardapi.CollectData computes it. */
export function downwardItemValue(pod: Pod, item: DownwardAPIVolumeFile, facts: DownwardFacts): string {
  if (item.fieldRef) return fieldRefValue(pod, item.fieldRef.fieldPath, { podIP: '', podIPs: [], hostIP: '', nodeName: facts.nodeName });
  if (item.resourceFieldRef) {
    const name = item.resourceFieldRef.containerName;
    const container = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])].find((c) => c.name === name);
    if (!container) throw new Error(`container ${name ?? ''} not found`);
    return resourceFieldValue(container, item.resourceFieldRef, facts.allocatable);
  }
  throw new Error(`downward API item ${item.path} has neither fieldRef nor resourceFieldRef`);
}

export function downwardPayload(pod: Pod, items: DownwardAPIVolumeFile[] | undefined, defaultMode: number, facts: DownwardFacts): [string, FileProjection][] {
  return (items ?? []).map((it) => [it.path, { content: Buffer.from(downwardItemValue(pod, it, facts)), mode: typeof it.mode === 'number' ? it.mode : defaultMode }]);
}
