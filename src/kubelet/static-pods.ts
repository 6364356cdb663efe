// Static pods: pods the kubelet reads from --pod-manifest-path rather than the API. Their
// annotations say where they came from (kubernetes.io/config.source = "file"); the API sees
// them as mirror pods (kubernetes.io/config.mirror).
import type { Pod } from '../api/kinds.js';

export const CONFIG_SOURCE = 'kubernetes.io/config.source';
export const CONFIG_MIRROR = 'kubernetes.io/config.mirror';
export const CONFIG_HASH = 'kubernetes.io/config.hash';
export const CONFIG_SEEN = 'kubernetes.io/config.seen';

/** A pod from a source other than the API server (upstream's IsStaticPod). */
export function isStaticPod(pod: Pod): boolean {
  const source = pod.metadata.annotations?.[CONFIG_SOURCE];
  return source !== undefined && source !== 'api';
}

/** The API's copy of a static pod. */
export function isMirrorPod(pod: Pod): boolean {
  return pod.metadata.annotations?.[CONFIG_MIRROR] !== undefined;
}
