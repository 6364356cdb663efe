// Pods' and containers' figures for /stats/summary from CRI ListContainerStats (containerd
// reads the containers' cgroups), grouped by the CRI labels the kubelet sets. A pod's CPU and
// memory are its containers' sums (the sandbox's pause process is left out).
import type { CRIRuntime } from '../../../cri/index.js';
import type { ContainerStats as CRIContainerStats } from '../../../cri/index.js';
import { podTotals, type ContainerStats, type PodStats } from '../../api/stats/summary.js';
import { LABELS } from '../server/containers.js';

const iso = (ns: string | undefined) => new Date(Number(BigInt(ns || '0') / 1_000_000n)).toISOString();

export async function podStats(cri: Pick<CRIRuntime, 'listContainerStats' | 'listContainers' | 'listPodSandbox'>): Promise<PodStats[]> {
  const [stats, containers, sandboxes] = await Promise.all([
    cri.listContainerStats({}), cri.listContainers({ state: { state: 'CONTAINER_RUNNING' } }), cri.listPodSandbox({ state: { state: 'SANDBOX_READY' } }),
  ]);
  const created = new Map(containers.map((c) => [c.id, c.created_at]));
  const pods = new Map<string, PodStats>();
  for (const s of sandboxes) {
    const uid = s.labels[LABELS.podUID] ?? s.metadata?.uid ?? '';
    pods.set(uid, {
      podRef: { name: s.labels[LABELS.podName] ?? s.metadata?.name ?? '', namespace: s.labels[LABELS.podNamespace] ?? s.metadata?.namespace ?? '', uid },
      startTime: iso(s.created_at), containers: [],
    });
  }
  for (const s of stats) {
    const pod = pods.get(s.attributes?.labels[LABELS.podUID] ?? '');
    if (!pod || !s.attributes) continue;
    pod.containers.push(containerStats(s, created.get(s.attributes.id)));
  }
  const out = [...pods.values()];
  for (const p of out) {
    const time = p.containers[0]?.cpu?.time ?? new Date().toISOString();
    Object.assign(p, podTotals(p.containers, time));
  }
  return out;
}

function containerStats(s: CRIContainerStats, createdAt: string | undefined): ContainerStats {
  const name = s.attributes?.labels[LABELS.containerName] ?? s.attributes?.metadata?.name ?? '';
  const out: ContainerStats = { name, startTime: iso(createdAt) };
  if (s.cpu?.usage_core_nano_seconds) {
    out.cpu = {
      time: iso(s.cpu.timestamp), usageCoreNanoSeconds: Number(s.cpu.usage_core_nano_seconds.value),
      ...(s.cpu.usage_nano_cores ? { usageNanoCores: Number(s.cpu.usage_nano_cores.value) } : {}),
    };
  }
  if (s.memory?.working_set_bytes) {
    out.memory = {
      time: iso(s.memory.timestamp), workingSetBytes: Number(s.memory.working_set_bytes.value),
      ...(s.memory.usage_bytes ? { usageBytes: Number(s.memory.usage_bytes.value) } : {}),
      ...(s.memory.rss_bytes ? { rssBytes: Number(s.memory.rss_bytes.value) } : {}),
    };
  }
  return out;
}
