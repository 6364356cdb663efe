// Static pods: pods the kubelet reads from --pod-manifest-path rather than the API, as
// upstream's file source does — each file one Pod (YAML or JSON), named `<name>-<node>`,
// namespace `default` unless given, a uid hashed from the manifest, the node and the file
// (so a restarted kubelet finds the same uid on its containers), annotations
// kubernetes.io/config.{source=file,hash,seen}. The directory is watched (fs.watch) and
// re-read every --file-check-frequency (20 s) in case a change event was missed.
// The API sees each as a mirror pod (kubernetes.io/config.mirror = the hash), owned by the Node.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { defaultPodSpec } from '../api/core/pod-defaults.js';
import { rfc3339 } from '../api/time.js';
import { fallbacks } from '../log/fallback.js';
import { stableStringify, type Clock } from '../util/index.js';
import { CONFIG_SOURCE_ANNOTATION } from './labels.js';
import type { Logger } from '../log/index.js';
import type { Node, Pod } from '../api/kinds.js';

export const CONFIG_MIRROR = 'kubernetes.io/config.mirror';
export const CONFIG_HASH = 'kubernetes.io/config.hash';
export const CONFIG_SEEN = 'kubernetes.io/config.seen';

/** A pod from a source other than the API server (upstream's IsStaticPod). */
export function isStaticPod(pod: Pod): boolean {
  const source = pod.metadata.annotations?.[CONFIG_SOURCE_ANNOTATION];
  return source !== undefined && source !== 'api';
}

/** The API's copy of a static pod. */
export function isMirrorPod(pod: Pod): boolean {
  return pod.metadata.annotations?.[CONFIG_MIRROR] !== undefined;
}

/** One manifest file's pod as the kubelet runs it. */
export function staticPodFromManifest(text: string, file: string, nodeName: string, now: number): Pod {
  const raw = yaml.load(text) as Pod | undefined;
  if (!raw || typeof raw !== 'object' || raw.kind !== 'Pod' || !raw.metadata?.name) throw new Error(`${file}: not a Pod with a name`);
  const pod = JSON.parse(JSON.stringify(raw)) as Pod;
  defaultPodSpec(pod.spec);
  const uid = createHash('md5').update(stableStringify(pod)).update(`host:${nodeName}`).update(`file:${file}`).digest('hex');
  pod.metadata = {
    ...pod.metadata, uid, name: `${pod.metadata.name}-${nodeName.toLowerCase()}`, namespace: pod.metadata.namespace || 'default',
    annotations: { ...pod.metadata.annotations, [CONFIG_SOURCE_ANNOTATION]: 'file', [CONFIG_HASH]: uid, [CONFIG_SEEN]: rfc3339(new Date(now)) },
  };
  pod.spec = { ...pod.spec!, nodeName };
  pod.status = { phase: 'Pending' };
  return pod;
}

/** The mirror pod to create for a static pod: its copy, marked, owned by the Node. */
export function mirrorPodFor(pod: Pod, node: Node): Pod {
  const { uid: _uid, resourceVersion: _rv, ...metadata } = pod.metadata;
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      ...metadata,
      annotations: { ...pod.metadata.annotations, [CONFIG_MIRROR]: pod.metadata.annotations?.[CONFIG_HASH] ?? '' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node.metadata.name as string, uid: node.metadata.uid as string, controller: true }],
    },
    spec: pod.spec,
  };
}

export interface StaticPodSourceOptions {
  dir: string;
  nodeName: string;
  clock: Clock;
  log: Logger;
  /** Re-read period (upstream's --file-check-frequency, 20 s). */
  periodMs?: number;
  /** Every pod the directory holds now (by uid), after each change. */
  onPods(pods: Map<string, Pod>): void;
}

/** Watches a manifest directory and reports its pods whenever they may have changed. */
export class StaticPodSource {
  private watcher?: FSWatcher;
  private timer: unknown;
  private pending: unknown;
  private seen = new Map<string, { mtimeMs: number; size: number; pod?: Pod }>();
  private readonly fallback;

  constructor(private o: StaticPodSourceOptions) {
    this.fallback = fallbacks('kubelet', o.log);
  }

  start(): void {
    try {
      this.watcher = watch(this.o.dir, () => this.soon());
      this.watcher.on('error', (e) => this.o.log.warn('pod manifest watch failed', { dir: this.o.dir, error: e.message }));
    } catch (e) {
      this.fallback('pod-manifest-dir-unwatchable-polling', { error: e, dir: this.o.dir });
    }
    this.scan();
  }

  stop(): void {
    this.watcher?.close();
    this.o.clock.clearTimeout(this.timer);
    this.o.clock.clearTimeout(this.pending);
  }

  private soon(): void {
    // Editors write in steps: read once the burst is over.
    this.o.clock.clearTimeout(this.pending);
    this.pending = this.o.clock.setTimeout(() => this.scan(), 100);
  }

  scan(): void {
    this.o.clock.clearTimeout(this.timer);
    const pods = new Map<string, Pod>();
    let files: string[] = [];
    try {
      files = readdirSync(this.o.dir).filter((f) => !f.startsWith('.')).sort();
    } catch (e) {
      this.fallback('pod-manifest-dir-unreadable-no-static-pods', { error: e, dir: this.o.dir });
    }
    const next = new Map<string, { mtimeMs: number; size: number; pod?: Pod }>();
    for (const f of files) {
      const path = join(this.o.dir, f);
      try {
        const st = statSync(path);
        if (!st.isFile()) continue;
        const old = this.seen.get(path);
        let pod = old && old.mtimeMs === st.mtimeMs && old.size === st.size ? old.pod : undefined;
        if (!pod) pod = staticPodFromManifest(readFileSync(path, 'utf8'), path, this.o.nodeName, this.o.clock.now());
        next.set(path, { mtimeMs: st.mtimeMs, size: st.size, pod });
        pods.set(pod.metadata.uid as string, pod);
      } catch (e) {
        this.o.log.warn('skipping pod manifest', { file: path, error: (e as Error).message });
      }
    }
    this.seen = next;
    this.o.onPods(pods);
    this.timer = this.o.clock.setTimeout(() => this.scan(), this.o.periodMs ?? 20_000);
  }
}
