// metrics.k8s.io/v1beta1 NodeMetrics and PodMetrics, as metrics-server serves them: get and
// list (label and field selectors apply to the Node or Pod the metrics are of), objects named
// and labelled as their Node or Pod, usage from the scraper. A Node or Pod without figures yet
// is left out of lists and NotFound on get, as metrics-server answers.
import type { ServerResponse } from 'node:http';
import { parseFieldSelector, parseSelector, SelectorParseError } from '../../api/labels.js';
import type { KubeObject } from '../../api/object.js';
import { badRequest, methodNotAllowed, notFound, noSuchPath, StatusError } from '../errors.js';
import type { Registries, ListSource } from '../registry/index.js';
import type { RequestInfo } from '../request-info.js';
import { sendObject } from '../respond.js';
import type { ExtraResource } from '../discovery.js';
import { cpuQuantity, goDuration, memoryQuantity, type Usage } from './points.js';
import type { MetricsScraper } from './scraper.js';

export const GROUP = 'metrics.k8s.io';
const apiVersion = `${GROUP}/v1beta1`;

export const metricsResources: ExtraResource[] = [
  { group: GROUP, version: 'v1beta1', resource: 'nodes', kind: 'NodeMetrics', namespaced: false, verbs: ['get', 'list'] },
  { group: GROUP, version: 'v1beta1', resource: 'pods', kind: 'PodMetrics', namespaced: true, verbs: ['get', 'list'] },
];

const meta = (o: KubeObject, now: Date) => ({
  name: o.metadata.name, ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
  creationTimestamp: now.toISOString().replace(/\.\d+Z$/, 'Z'), ...(o.metadata.labels ? { labels: o.metadata.labels } : {}),
});
const stamp = (u: Usage) => ({ timestamp: new Date(u.at).toISOString().replace(/\.\d+Z$/, 'Z'), window: goDuration(u.windowMs) });

function nodeMetrics(node: KubeObject, u: Usage, now: Date): KubeObject {
  return { kind: 'NodeMetrics', apiVersion, metadata: meta(node, now), ...stamp(u), usage: { cpu: cpuQuantity(u.cpu), memory: memoryQuantity(u.memory) } };
}

function podMetrics(pod: KubeObject, containers: Map<string, Usage>, now: Date): KubeObject {
  const first = [...containers.values()][0];
  return {
    kind: 'PodMetrics', apiVersion, metadata: meta(pod, now), ...stamp(first),
    containers: [...containers].map(([name, u]) => ({ name, usage: { cpu: cpuQuantity(u.cpu), memory: memoryQuantity(u.memory) } })),
  };
}

export async function serveMetrics(res: ServerResponse, query: URLSearchParams, info: RequestInfo, registries: Registries, source: ListSource, scraper: MetricsScraper | undefined): Promise<void> {
  if (info.version !== 'v1beta1' || (info.resource !== 'nodes' && info.resource !== 'pods') || info.subresource) throw noSuchPath();
  if (info.resource === 'nodes' && info.namespace) throw noSuchPath();
  if (info.resource === 'pods' && info.name && !info.namespace) throw noSuchPath();
  if (info.verb !== 'get' && info.verb !== 'list') throw methodNotAllowed('the server does not allow this method on the requested resource');
  if (!scraper) throw new StatusError(503, 'ServiceUnavailable', 'the API server has no kubelet client credentials to scrape metrics with');
  await scraper.use();
  const now = new Date();
  const reg = registries.get('', info.resource)!;
  if (info.verb === 'get') {
    const obj = await reg.get(info.namespace || undefined, info.name);
    const m = info.resource === 'nodes' ? nodeOf(obj) : podOf(obj);
    if (!m) throw notFound(info.resource, GROUP, info.name);
    return sendObject(res, 200, m);
  }
  let labelSelector, fieldSelector;
  try {
    labelSelector = parseSelector(query.get('labelSelector') ?? '');
    fieldSelector = parseFieldSelector(query.get('fieldSelector') ?? '');
  } catch (e) {
    if (e instanceof SelectorParseError) throw badRequest(`unable to parse requirement: ${e.message}`);
    throw e;
  }
  const list = await reg.list({ namespace: info.namespace || undefined, labelSelector, fieldSelector, source });
  const items = list.items.map((o) => (info.resource === 'nodes' ? nodeOf(o) : podOf(o))).filter((m): m is KubeObject => !!m);
  return sendObject(res, 200, { kind: info.resource === 'nodes' ? 'NodeMetricsList' : 'PodMetricsList', apiVersion, metadata: {}, items });

  function nodeOf(node: KubeObject): KubeObject | null {
    const u = scraper!.nodeUsage(node.metadata.name ?? '');
    return u && nodeMetrics(node, u, now);
  }
  function podOf(pod: KubeObject): KubeObject | null {
    const node = pod.spec?.nodeName as string | undefined;
    if (!node || pod.status?.phase !== 'Running') return null;
    const u = scraper!.podUsage(node, pod.metadata.namespace ?? '', pod.metadata.name ?? '');
    return u && u.size ? podMetrics(pod, u, now) : null;
  }
}
