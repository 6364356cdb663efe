// The object a CONNECT request hands to admission: the pod's exec, attach or port-forward
// options as upstream decodes them from the query (PodExecOptions, PodAttachOptions,
// PodPortForwardOptions), so plugins and webhooks see what is asked for.
import type { KubeObject } from '../../api/object.js';

const kinds: Record<string, string> = { exec: 'PodExecOptions', attach: 'PodAttachOptions', portforward: 'PodPortForwardOptions' };

export function connectOptions(subresource: string, query: URLSearchParams): KubeObject {
  const flag = (name: string) => (query.has(name) ? ['true', '1'].includes(query.get(name) ?? '') : undefined);
  const out: Record<string, unknown> = { kind: kinds[subresource] ?? 'PodExecOptions', apiVersion: 'v1', metadata: {} };
  if (subresource === 'portforward') {
    const ports = query.getAll('ports').flatMap((p) => p.split(',')).map(Number).filter(Number.isInteger);
    if (ports.length) out.ports = ports;
    return out as KubeObject;
  }
  for (const name of ['stdin', 'stdout', 'stderr', 'tty']) {
    const v = flag(name);
    if (v !== undefined) out[name] = v;
  }
  if (query.has('container')) out.container = query.get('container');
  if (subresource === 'exec') out.command = query.getAll('command');
  return out as KubeObject;
}
