// Prometheus metrics with the kubelet's names (pkg/kubelet/metrics), on the registry given,
// so two kubelets in one process (hollow nodes, tests) do not share counts.
import { Histogram, type Registry } from 'prom-client';
import { metricOn } from '../log/metrics.js';

/** What a pod worker's sync was for, as upstream labels it: first sight, a changed pod, a resync. */
export type SyncOperation = 'create' | 'update' | 'sync';

export interface KubeletMetrics {
  podWorkerDuration: Histogram<'operation_type'>;
}

export function kubeletMetrics(registry: Registry): KubeletMetrics {
  return {
    podWorkerDuration: metricOn(registry, 'kubelet_pod_worker_duration_seconds', () => new Histogram({
      name: 'kubelet_pod_worker_duration_seconds',
      help: 'Duration in seconds to sync a single pod. Broken down by operation type: create, update, or sync',
      labelNames: ['operation_type'], registers: [registry],
    })),
  };
}
