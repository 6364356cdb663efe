// The /etc/hosts the kubelet writes for each pod and mounts into its containers
// (containerd would otherwise copy the host's own file in).
import { mkdir, writeFile } from 'node:fs/promises';
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

/** Writes the pod's hosts file (unless it holds `written` already) and returns its path and content. */
export async function writeHostsFile(root: string, pod: Pod, podIPs: string[], written?: string): Promise<{ path: string; content: string }> {
  const dir = podDir(root, pod.metadata.uid as string);
  const path = join(dir, 'etc-hosts');
  const content = hostsFileContent(pod, podIPs);
  if (content !== written) {
    await mkdir(dir, { recursive: true });
    await writeFile(path, content, { mode: 0o644 });
  }
  return { path, content };
}
