// Defaults of a PodSpec, shared by Pods and every pod template (Deployments, ReplicaSets).
import type { Fields } from '../object.js';

function defaultPullPolicy(image: unknown): string {
  if (typeof image !== 'string') return 'IfNotPresent';
  if (image.includes('@')) return 'IfNotPresent';
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  const tag = lastSegment.includes(':') ? lastSegment.slice(lastSegment.indexOf(':') + 1) : '';
  return !tag || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultContainer(c: Fields): void {
  c.terminationMessagePath ??= '/dev/termination-log';
  c.terminationMessagePolicy ??= 'File';
  c.imagePullPolicy ??= defaultPullPolicy(c.image);
  c.resources ??= {};
  for (const p of c.ports ?? []) p.protocol ??= 'TCP';
  for (const probe of [c.livenessProbe, c.readinessProbe, c.startupProbe]) {
    if (!probe) continue;
    probe.timeoutSeconds ??= 1;
    probe.periodSeconds ??= 10;
    probe.successThreshold ??= 1;
    probe.failureThreshold ??= 3;
    if (probe.httpGet) probe.httpGet.scheme ??= 'HTTP';
  }
  for (const e of c.env ?? []) {
    if (e.valueFrom?.fieldRef) e.valueFrom.fieldRef.apiVersion ??= 'v1';
  }
}

export function defaultPodSpec(spec: Fields | undefined): void {
  if (!spec) return;
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.securityContext ??= {};
  spec.schedulerName ??= 'default-scheduler';
  spec.enableServiceLinks ??= true;
  for (const c of spec.containers ?? []) defaultContainer(c);
  for (const c of spec.initContainers ?? []) defaultContainer(c);
  for (const v of spec.volumes ?? []) {
    if (v.configMap) v.configMap.defaultMode ??= 0o644;
    if (v.secret) v.secret.defaultMode ??= 0o644;
    if (v.hostPath) v.hostPath.type ??= '';
    if (v.downwardAPI) {
      v.downwardAPI.defaultMode ??= 0o644;
      for (const it of v.downwardAPI.items ?? []) if (it.fieldRef) it.fieldRef.apiVersion ??= 'v1';
    }
    if (v.projected) {
      v.projected.defaultMode ??= 0o644;
      for (const src of v.projected.sources ?? []) {
        if (src.serviceAccountToken) src.serviceAccountToken.expirationSeconds ??= 3600;
        for (const it of src.downwardAPI?.items ?? []) if (it.fieldRef) it.fieldRef.apiVersion ??= 'v1';
      }
    }
  }
}

/**
 * A Pod's (not a template's) containers request what they are limited to unless they say
 * otherwise, as upstream's SetDefaults_Pod: done when the pod is decoded, before admission.
 */
export function defaultPodRequests(pod: Fields): void {
  for (const c of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])] as Fields[]) {
    const limits = c.resources?.limits as Record<string, unknown> | undefined;
    if (!limits) continue;
    const requests = c.resources.requests ??= {};
    for (const [k, v] of Object.entries(limits)) requests[k] ??= v;
  }
}
