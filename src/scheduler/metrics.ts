// Prometheus metrics with kube-scheduler's names, registered on the registry given (one per
// scheduler instance, so two schedulers in one test process do not collide).
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface SchedulerMetrics {
  attempts: Counter<'result' | 'profile'>;
  e2eLatency: Histogram<'result' | 'profile'>;
  algorithmLatency: Histogram;
  pending: Gauge<'queue'>;
}

const buckets = [0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60];

export function schedulerMetrics(registry: Registry, pending: () => { active: number; backoff: number; unschedulable: number }): SchedulerMetrics {
  return {
    attempts: new Counter({ name: 'scheduler_schedule_attempts_total', help: 'Number of attempts to schedule pods, by the result.', labelNames: ['result', 'profile'], registers: [registry] }),
    e2eLatency: new Histogram({ name: 'scheduler_e2e_scheduling_duration_seconds', help: 'E2e scheduling latency in seconds (from first seen to bound).', labelNames: ['result', 'profile'], buckets, registers: [registry] }),
    algorithmLatency: new Histogram({ name: 'scheduler_scheduling_algorithm_duration_seconds', help: 'Scheduling algorithm latency in seconds.', buckets, registers: [registry] }),
    pending: new Gauge({
      name: 'scheduler_pending_pods', help: 'Number of pending pods, by the queue type.', labelNames: ['queue'], registers: [registry],
      collect() {
        const s = pending();
        this.set({ queue: 'active' }, s.active);
        this.set({ queue: 'backoff' }, s.backoff);
        this.set({ queue: 'unschedulable' }, s.unschedulable);
      },
    }),
  };
}
