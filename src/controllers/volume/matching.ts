// Which volume a claim binds to, after upstream's findMatchingVolume: the volume pre-bound to
// the claim if it satisfies it, else the smallest free volume of the claim's class whose
// capacity, access modes, volume mode, labels (the claim's selector) and node affinity fit.
import { fromLabelSelector, matches } from '../../api/labels.js';
import { anyTermMatches, compileNodeSelectorTerms } from '../../api/core/node-selector.js';
import type { Node, PersistentVolume, PersistentVolumeClaim } from '../../api/kinds.js';
import { quantityValue } from '../../util/quantity.js';

export const claimClass = (c: PersistentVolumeClaim): string => c.spec?.storageClassName ?? '';
export const volumeClass = (v: PersistentVolume): string => v.spec?.storageClassName ?? '';

/** The volume's claimRef names this claim (and its uid, when the ref carries one). */
export function volumeBoundToClaim(v: PersistentVolume, c: PersistentVolumeClaim): boolean {
  const ref = v.spec?.claimRef;
  if (!ref || ref.name !== c.metadata.name || ref.namespace !== c.metadata.namespace) return false;
  return !ref.uid || ref.uid === c.metadata.uid;
}

/** Why the volume cannot serve the claim, or undefined when it can (upstream's checkVolumeSatisfyClaim). */
export function unsatisfied(v: PersistentVolume, c: PersistentVolumeClaim): string | undefined {
  const want = quantityValue(c.spec?.resources?.requests?.storage) ?? 0;
  const have = quantityValue(v.spec?.capacity?.storage) ?? 0;
  if (have < want) return 'requested PV is too small';
  if (volumeClass(v) !== claimClass(c)) return 'storageClassName does not match';
  const modes = new Set(v.spec?.accessModes ?? []);
  if (!(c.spec?.accessModes ?? []).every((m) => modes.has(m))) return 'incompatible accessMode';
  if ((v.spec?.volumeMode ?? 'Filesystem') !== (c.spec?.volumeMode ?? 'Filesystem')) return 'incompatible volumeMode';
  return undefined;
}

/** Whether the volume may be used from the node (no node affinity: anywhere). */
export function volumeFitsNode(v: PersistentVolume, node: Pick<Node, 'metadata'>): boolean {
  const terms = v.spec?.nodeAffinity?.required?.nodeSelectorTerms;
  if (!terms) return true;
  try {
    return anyTermMatches(compileNodeSelectorTerms(terms), node.metadata.name ?? '', node.metadata.labels ?? {});
  } catch {
    return false;
  }
}

/**
 * The volume the claim should bind to. `node` is the selected node of a WaitForFirstConsumer
 * claim; `delayed` says the claim's class waits for a consumer (no node yet: only a volume
 * pre-bound to the claim is taken).
 */
export function findMatchingVolume(c: PersistentVolumeClaim, volumes: PersistentVolume[], opts: { delayed: boolean; node?: Pick<Node, 'metadata'> }): PersistentVolume | undefined {
  let selector = null;
  try {
    selector = fromLabelSelector(c.spec?.selector);
  } catch {
    return undefined;
  }
  let best: PersistentVolume | undefined;
  let bestSize = Infinity;
  for (const v of volumes) {
    if (v.metadata.deletionTimestamp || unsatisfied(v, c)) continue;
    if (opts.node && !volumeFitsNode(v, opts.node)) continue;
    if (volumeBoundToClaim(v, c)) return v;
    if (opts.delayed && !opts.node) continue;
    if (v.spec?.claimRef) continue;
    if (selector && !matches(selector, v.metadata.labels)) continue;
    const size = quantityValue(v.spec?.capacity?.storage) ?? 0;
    if (size < bestSize) { best = v; bestSize = size; }
  }
  return best;
}
