// Get-or-create for prom-client metrics: a component may build the same metric more than
// once on one registry (a new leadership term, a second queue), and a metric must land on
// the registry it is given, not on whichever registry asked first.
import type { Metric, Registry } from 'prom-client';

/** The metric called `name` on `registry`, made by `make` the first time it is asked for. */
export function metricOn<T extends Metric>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}
