// The names capstan's kubelet puts on CRI sandboxes and containers (Kubernetes' own, so
// crictl and other tools read them as they would on any node), and the log layout.
// Everything the kubelet knows about a pod's runtime objects can be rebuilt from these
// after a restart.
import { join } from 'node:path';

export const POD_NAME_LABEL = 'io.kubernetes.pod.name';
export const POD_NAMESPACE_LABEL = 'io.kubernetes.pod.namespace';
export const POD_UID_LABEL = 'io.kubernetes.pod.uid';
export const CONTAINER_NAME_LABEL = 'io.kubernetes.container.name';
/** Set by capstan to tell the kubelet's own objects from others' on a shared runtime. */
export const MANAGED_LABEL = 'io.kubernetes.kubelet.managed-by';
export const MANAGED_VALUE = 'capstan';

export const CONTAINER_HASH_ANNOTATION = 'io.kubernetes.container.hash';
export const RESTART_COUNT_ANNOTATION = 'io.kubernetes.container.restartCount';
export const TERMINATION_MESSAGE_PATH_ANNOTATION = 'io.kubernetes.container.terminationMessagePath';
export const TERMINATION_MESSAGE_POLICY_ANNOTATION = 'io.kubernetes.container.terminationMessagePolicy';
export const GRACE_PERIOD_ANNOTATION = 'io.kubernetes.pod.terminationGracePeriod';
export const INIT_CONTAINER_ANNOTATION = 'io.kubernetes.container.init';
export const CONFIG_SOURCE_ANNOTATION = 'kubernetes.io/config.source';

/** Where a pod's container logs live: <logRoot>/<namespace>_<name>_<uid> (the sandbox's
 *  CRI log_directory). */
export function podLogDirectory(logRoot: string, namespace: string, name: string, uid: string): string {
  return join(logRoot, `${namespace}_${name}_${uid}`);
}

/** A container's log file, relative to its pod's log directory: <container>/<restartCount>.log. */
export function containerLogPath(container: string, restartCount: number): string {
  return `${container}/${restartCount}.log`;
}
