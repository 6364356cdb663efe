// The Service environment variables the kubelet gives every container (upstream's
// pkg/kubelet/envvars): FOO_SERVICE_HOST, FOO_SERVICE_PORT(_NAME) and the Docker-link style
// FOO_PORT… for each Service with a cluster IP in the pod's namespace (unless
// enableServiceLinks is false), and always for the `kubernetes` Service of the default
// namespace: with the mounted token that is what in-cluster client configuration reads.
import type { Pod, Service } from '../api/kinds.js';

/** Where the API server's own Service lives (kubelet's --master-service-namespace). */
const MASTER_NAMESPACE = 'default';
const MASTER_SERVICES = new Set(['kubernetes']);

const varName = (name: string) => name.toUpperCase().replace(/-/g, '_');
const hasClusterIP = (s: Service) => !!s.spec?.clusterIP && s.spec.clusterIP !== 'None';

/** The Services whose variables a pod gets: one per name, the `kubernetes` Service first come. */
export function servicesForPod(pod: Pod, services: Iterable<Service>): Service[] {
  const ns = pod.metadata.namespace ?? 'default';
  const links = pod.spec?.enableServiceLinks ?? true;
  const byName = new Map<string, Service>();
  for (const s of services) {
    if (!hasClusterIP(s)) continue;
    const name = s.metadata.name as string;
    if (s.metadata.namespace === MASTER_NAMESPACE && MASTER_SERVICES.has(name)) {
      if (!byName.has(name)) byName.set(name, s);
    } else if (s.metadata.namespace === ns && links) byName.set(name, s);
  }
  return [...byName.keys()].sort().map((k) => byName.get(k)!);
}

/** The variables of these Services, in upstream's order. */
export function serviceEnvVars(services: Service[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const s of services) {
    const ip = s.spec!.clusterIP as string;
    const ports = s.spec?.ports ?? [];
    const prefix = varName(s.metadata.name as string);
    out.set(`${prefix}_SERVICE_HOST`, ip);
    if (ports[0]) out.set(`${prefix}_SERVICE_PORT`, String(ports[0].port));
    for (const p of ports) if (p.name) out.set(`${prefix}_SERVICE_PORT_${varName(p.name)}`, String(p.port));
    const hostPort = ip.includes(':') ? `[${ip}]:` : `${ip}:`;
    ports.forEach((p, i) => {
      const proto = (p.protocol ?? 'TCP').toLowerCase();
      const url = `${proto}://${hostPort}${p.port}`;
      if (i === 0) out.set(`${prefix}_PORT`, url);
      const pp = `${prefix}_PORT_${p.port}_${proto.toUpperCase()}`;
      out.set(pp, url);
      out.set(`${pp}_PROTO`, proto);
      out.set(`${pp}_PORT`, String(p.port));
      out.set(`${pp}_ADDR`, ip);
    });
  }
  return out;
}
