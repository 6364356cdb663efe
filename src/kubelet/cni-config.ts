// Until capstan's own CNI plugin lands, a node whose CNI conf dir is empty gets the
// reference ptp + host-local plugins (Debian's containernetworking-plugins) on its
// podCIDR, as kubenet used to do. An existing configuration is never touched.
import { existsSync, mkdirSync, readdirSync, writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';

export const PTP_CONFIG_NAME = '10-capstan-ptp.conflist';

export function hasCNIConfig(confDir: string): boolean {
  try {
    return readdirSync(confDir).some((f) => /\.(conf|conflist|json)$/.test(f) && f !== PTP_CONFIG_NAME);
  } catch { // no conf dir: no CNI config
    return false;
  }
}

export function ptpConfig(podCIDR: string, ipamDataDir: string): object {
  return {
    cniVersion: '0.4.0',
    name: 'capstan-ptp',
    // No ipMasq/portmap: both write iptables rules into the host's tables, which capstan
    // leaves alone; Services and egress are the proxy's and the CNI issue's.
    plugins: [
      { type: 'ptp', ipMasq: false, ipam: { type: 'host-local', ranges: [[{ subnet: podCIDR }]], routes: [{ dst: '0.0.0.0/0' }], dataDir: ipamDataDir } },
    ],
  };
}

/** Writes the ptp conflist for `podCIDR` unless another configuration exists; true when written. */
export function writePtpConfig(confDir: string, podCIDR: string, ipamDataDir: string): boolean {
  if (hasCNIConfig(confDir)) return false;
  mkdirSync(confDir, { recursive: true });
  const path = join(confDir, PTP_CONFIG_NAME);
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(ptpConfig(podCIDR, ipamDataDir), null, 2)}\n`);
  renameSync(tmp, path);
  return existsSync(path);
}
