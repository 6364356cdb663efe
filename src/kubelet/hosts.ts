// The /etc/hosts the kubelet writes for each pod and mounts into its containers
// (containerd would otherwise copy the host's own file in).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { podDir } from './volumes.js';
import type { Pod } from '../api/kinds.js';

export function hostsFileContent(pod: Pod, podIPs: string[]): string {
  const hostname = pod.spec?.hostname ?? pod.metadata.name;
  const fqdn = pod.spec?.subdomain ? `${hostname}.${pod.spec.subdomain}.${pod.metadata.namespace}.svc.cluster.local` : '';
  const lines = [
    '# Kubernetes-managed hosts file.',
    '127.0.0.1\tlocalhost',
    '::1\tlocalhost ip6-localhost ip6-loopback',
    'fe00::0\tip6-localnet',
    'fe00::0\tip6-mcastprefix',
    'fe00::1\tip6-allnodes',
    'fe00::2\tip6-allrouters',
  ];
  for (const ip of podIPs) lines.push(`${ip}\t${fqdn ? `${fqdn}\t` : ''}${hostname}`);
  const aliases = pod.spec?.hostAliases ?? [];
  if (aliases.length) {
    lines.push('', '# Entries added by HostAliases.');
    for (const a of aliases) lines.push(`${a.ip}\t${(a.hostnames ?? []).join('\t')}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Writes the pod's hosts file and returns its path. */
export function writeHostsFile(root: string, pod: Pod, podIPs: string[]): string {
  const dir = podDir(root, pod.metadata.uid as string);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'etc-hosts');
  writeFileSync(path, hostsFileContent(pod, podIPs), { mode: 0o644 });
  return path;
}
