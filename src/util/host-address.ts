// The host's own address, as kube-apiserver and the kubelet choose it when none is given
// (k8s.io/apimachinery's ChooseHostInterface): the first global IPv4 address of the
// interface that holds the default route; without a default route, the first global IPv4
// address of any interface. Loopback and link-local addresses are never chosen.
import { readFileSync } from 'node:fs';
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';

/** Interface names of the IPv4 default routes in /proc/net/route's text, lowest metric first. */
export function defaultRouteInterfaces(procNetRoute: string): string[] {
  const routes: { iface: string; metric: number }[] = [];
  for (const line of procNetRoute.split('\n').slice(1)) {
    const [iface, destination, , flags, , , metric, mask] = line.trim().split(/\s+/);
    if (!iface || destination !== '00000000' || mask !== '00000000') continue;
    if ((parseInt(flags ?? '0', 16) & 0x1) === 0) continue; // RTF_UP
    routes.push({ iface, metric: Number(metric) || 0 });
  }
  return routes.sort((a, b) => a.metric - b.metric).map((r) => r.iface);
}

const usable = (a: NetworkInterfaceInfo) => a.family === 'IPv4' && !a.internal && !a.address.startsWith('127.') && !a.address.startsWith('169.254.');

/** The chosen address from the default routes' interfaces and the host's interfaces, or undefined. */
export function chooseHostAddress(defaultInterfaces: string[], interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): string | undefined {
  for (const name of defaultInterfaces) {
    const a = (interfaces[name] ?? []).find(usable);
    if (a) return a.address;
  }
  for (const addrs of Object.values(interfaces)) {
    const a = (addrs ?? []).find(usable);
    if (a) return a.address;
  }
  return undefined;
}

/** This host's (this network namespace's) address, or undefined when it has only loopback. */
export function hostAddress(): string | undefined {
  let routes = '';
  try { routes = readFileSync('/proc/net/route', 'utf8'); } catch { /* no procfs: any interface will do */ }
  return chooseHostAddress(defaultRouteInterfaces(routes), networkInterfaces());
}
