// ADD results in the shape of the requested cniVersion: 1.0.0 dropped ips[].version, which
// 0.3.x/0.4.0 require.
import { POD_GATEWAY } from '../podnet.js';

export interface PodResultInput {
  cniVersion: string;
  hostVeth: string;
  hostMac: string;
  ifName: string;
  podMac: string;
  /** CNI_NETNS as the runtime gave it. */
  sandbox: string;
  podIP: string;
  dns?: Record<string, unknown>;
}

const legacy = (v: string) => v !== '1.0.0';

export function podResult(r: PodResultInput): Record<string, unknown> {
  return {
    cniVersion: r.cniVersion,
    interfaces: [
      { name: r.hostVeth, mac: r.hostMac },
      { name: r.ifName, mac: r.podMac, sandbox: r.sandbox },
    ],
    ips: [{ ...(legacy(r.cniVersion) ? { version: '4' } : {}), address: `${r.podIP}/32`, interface: 1 }],
    routes: [{ dst: '0.0.0.0/0', gw: POD_GATEWAY }],
    dns: r.dns ?? {},
  };
}

export function loopbackResult(cniVersion: string, sandbox: string): Record<string, unknown> {
  return {
    cniVersion,
    interfaces: [{ name: 'lo', mac: '00:00:00:00:00:00', sandbox }],
    ips: [{ ...(legacy(cniVersion) ? { version: '4' } : {}), address: '127.0.0.1/8', interface: 0 }],
    dns: {},
  };
}
