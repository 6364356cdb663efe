// Which slice writes of ours the informer has not shown yet, after Kubernetes'
// EndpointSliceTracker. Slices are created with generateName, so reconciling from a cache
// that has not seen our last create would create a second slice for the same endpoints;
// the controller waits instead until the cache caught up.
import type { Clock } from '../../client/index.js';
import type { EndpointSlice } from '../../api/kinds.js';

/** After this long an expectation is dropped, so a lost event cannot stall a Service forever. */
const expectationTTLms = 60_000;

interface Expectation { rv: number | 'deleted'; at: number }

const rvOf = (o: EndpointSlice): number => Number(o.metadata.resourceVersion ?? 0);

export class SliceTracker {
  /** service key → slice name → what we last wrote. */
  private expected = new Map<string, Map<string, Expectation>>();

  constructor(private clock: Clock) {}

  private forService(serviceKey: string): Map<string, Expectation> {
    let m = this.expected.get(serviceKey);
    if (!m) this.expected.set(serviceKey, (m = new Map()));
    return m;
  }

  wrote(serviceKey: string, slice: EndpointSlice): void {
    this.forService(serviceKey).set(slice.metadata.name as string, { rv: rvOf(slice), at: this.clock.now() });
  }

  deleted(serviceKey: string, name: string): void {
    this.forService(serviceKey).set(name, { rv: 'deleted', at: this.clock.now() });
  }

  /** The informer delivered `slice` (or its deletion): expectations it meets are done. */
  observed(serviceKey: string, slice: EndpointSlice, gone: boolean): void {
    const m = this.expected.get(serviceKey);
    const e = m?.get(slice.metadata.name as string);
    if (!m || !e) return;
    if (gone || (e.rv !== 'deleted' && rvOf(slice) >= e.rv)) m.delete(slice.metadata.name as string);
    if (!m.size) this.expected.delete(serviceKey);
  }

  /** True when `cached` (the lister's slices of the Service) lacks a write we made. */
  stale(serviceKey: string, cached: readonly EndpointSlice[]): boolean {
    const m = this.expected.get(serviceKey);
    if (!m) return false;
    const byName = new Map(cached.map((s) => [s.metadata.name as string, s]));
    const now = this.clock.now();
    let stale = false;
    for (const [name, e] of m) {
      const s = byName.get(name);
      const met = e.rv === 'deleted' ? !s : !!s && rvOf(s) >= e.rv;
      if (met || now - e.at > expectationTTLms) m.delete(name);
      else stale = true;
    }
    if (!m.size) this.expected.delete(serviceKey);
    return stale;
  }

  forget(serviceKey: string): void {
    this.expected.delete(serviceKey);
  }
}
