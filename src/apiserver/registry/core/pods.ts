import { isDeepStrictEqual } from 'node:util';
import type { KubeObject, Fields } from '../../../api/object.js';
import type { ResourceDef } from '../types.js';
import { ageColumn, col, identityVersion, joinOrNone, specStrategy, statusStrategy } from '../common.js';
import { defaultPodRequests, defaultPodSpec } from '../../../api/core/pod-defaults.js';
import { validatePodSpec } from '../../../api/core/pod-validation.js';
import { forbiddenField } from '../../../api/validation.js';
import { ephemeralContainersStrategy } from './ephemeral-containers.js';

function qosClass(spec: Fields | undefined): string {
  const containers: Fields[] = [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])];
  let anySet = false, guaranteed = true;
  for (const c of containers) {
    const req = c.resources?.requests ?? {}, lim = c.resources?.limits ?? {};
    if (Object.keys(req).length || Object.keys(lim).length) anySet = true;
    for (const r of ['cpu', 'memory']) {
      if (lim[r] === undefined || (req[r] !== undefined && String(req[r]) !== String(lim[r]))) guaranteed = false;
    }
  }
  if (!anySet) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

/** The fields of a running pod's spec that an update may change (as Kubernetes allows). */
function mutableView(spec: Fields | undefined): Fields {
  const s = structuredClone(spec ?? {});
  for (const c of [...(s.containers ?? []), ...(s.initContainers ?? [])]) delete c.image;
  delete s.activeDeadlineSeconds;
  delete s.tolerations;
  delete s.terminationGracePeriodSeconds;
  return s;
}

function podReady(o: KubeObject): string {
  const statuses: Fields[] = o.status?.containerStatuses ?? [];
  const total = (o.spec?.containers ?? []).length;
  return `${statuses.filter((s) => s.ready).length}/${total}`;
}

/** The STATUS column: the reason a user cares about (CrashLoopBackOff, Completed, Terminating). */
function podStatus(o: KubeObject): string {
  let reason: string = o.status?.reason ?? o.status?.phase ?? 'Pending';
  for (const s of (o.status?.containerStatuses ?? []) as Fields[]) {
    if (s.state?.waiting?.reason) reason = s.state.waiting.reason;
    else if (s.state?.terminated) reason = s.state.terminated.reason ?? (s.state.terminated.signal ? `Signal:${s.state.terminated.signal}` : `ExitCode:${s.state.terminated.exitCode}`);
  }
  if (o.metadata.deletionTimestamp && o.status?.reason !== 'NodeLost') reason = 'Terminating';
  return reason;
}

function restarts(o: KubeObject): number {
  return ((o.status?.containerStatuses ?? []) as Fields[]).reduce((n, s) => n + (s.restartCount ?? 0), 0);
}

export const pods: ResourceDef = {
  group: '', resource: 'pods', singular: 'pod', kind: 'Pod', listKind: 'PodList', namespaced: true,
  shortNames: ['po'], categories: ['all'],
  versions: [identityVersion('v1', 'io.k8s.api.core.v1.Pod', defaultPodRequests)],
  storageVersion: 'v1',
  strategy: specStrategy({
    initialStatus: (o) => ({ phase: 'Pending', qosClass: qosClass(o.spec) }),
    defaults: (o) => {
      defaultPodSpec(o.spec);
      if (o.spec) {
        o.spec.serviceAccountName ??= o.spec.serviceAccount ?? 'default';
        o.spec.serviceAccount ??= o.spec.serviceAccountName;
        o.spec.priority ??= 0;
      }
    },
    validate: (o) => validatePodSpec(o.spec, 'spec'),
    // Ephemeral containers come only through pods/ephemeralcontainers, to a pod that exists.
    validateCreate: (o) => (o.spec?.ephemeralContainers?.length ? [forbiddenField('spec.ephemeralContainers', 'cannot be set on create')] : []),
    validateUpdate(o, old) {
      if (isDeepStrictEqual(mutableView(o.spec), mutableView(old.spec))) return [];
      return [forbiddenField('spec', 'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)')];
    },
  }),
  statusStrategy: statusStrategy(),
  // The binding handler sets spec.nodeName and the PodScheduled condition and nothing else.
  subresourceStrategies: { binding: { validate: () => [] }, ephemeralcontainers: ephemeralContainersStrategy },
  extraSubresources: ['binding', 'ephemeralcontainers', 'eviction'],
  fieldLabels: (o) => ({
    'spec.nodeName': o.spec?.nodeName ?? '',
    'spec.restartPolicy': o.spec?.restartPolicy ?? '',
    'spec.schedulerName': o.spec?.schedulerName ?? '',
    'spec.serviceAccountName': o.spec?.serviceAccountName ?? '',
    'spec.hostNetwork': String(o.spec?.hostNetwork ?? false),
    'status.phase': o.status?.phase ?? '',
    'status.podIP': o.status?.podIP ?? '',
    'status.nominatedNodeName': o.status?.nominatedNodeName ?? '',
  }),
  returnDeletedObject: true,
  gracePeriod(o, requested) {
    // A pod no kubelet runs yet, or one that has finished, goes at once.
    if (!o.spec?.nodeName || ['Succeeded', 'Failed'].includes(o.status?.phase)) return 0;
    const g = requested ?? o.spec?.terminationGracePeriodSeconds ?? 30;
    return g === 0 ? 0 : g;
  },
  columns: [
    col('Ready', 'The aggregate readiness state of this pod for accepting traffic.', podReady),
    col('Status', 'The aggregate status of the containers in this pod.', podStatus),
    col('Restarts', 'The number of times the containers in this pod have been restarted.', restarts, 0, 'string'),
    ageColumn,
    col('IP', 'IP address allocated to the pod.', (o) => o.status?.podIP ?? '<none>', 1),
    col('Node', 'Name of the Node this pod is assigned to.', (o) => o.spec?.nodeName ?? '<none>', 1),
    col('Nominated Node', 'Name of the node nominated by the scheduler.', (o) => o.status?.nominatedNodeName ?? '<none>', 1),
    col('Readiness Gates', 'The readiness gates of the pod.', (o) => joinOrNone((o.spec?.readinessGates ?? []).map((g: Fields) => g.conditionType)), 1),
  ],
};
