// The API server's in-process metrics-server: scrapes every node's kubelet
// (`/metrics/resource`, as the API server's kubelet client) while metrics.k8s.io is in use,
// keeps the last two scrapes per node and answers NodeMetrics and PodMetrics from them.
// It runs only while the group is asked for: the first request starts it (two scrapes a
// second apart, so there is a rate at once), then it scrapes every `resolutionMs` (15 s, as
// metrics-server's --metric-resolution) and stops after `idleMs` without a request.
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { KubeObject } from '../../api/object.js';
import type { Logger } from '../../log/index.js';
import type { KubeletClientConfig } from '../handlers/proxy.js';
import { kubeletEndpoint } from '../handlers/proxy.js';
import { parseScrape, usageBetween, type NodeScrape, type Usage } from './points.js';

export interface ScraperOptions {
  kubelet: KubeletClientConfig;
  /** The Nodes to scrape (from the watch cache). */
  nodes(): Promise<KubeObject[]>;
  log: Logger;
  resolutionMs?: number;
  idleMs?: number;
  timeoutMs?: number;
  now?: () => number;
}

const CONCURRENCY = 16;

export class MetricsScraper {
  private scrapes = new Map<string, { prev?: NodeScrape; cur: NodeScrape }>();
  private timer?: NodeJS.Timeout;
  private lastUsed = 0;
  private ready?: Promise<void>;
  private stopped = false;

  constructor(private o: ScraperOptions) {}

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  /** Marks the group used; resolves once there is data (or the first scrapes failed). */
  use(): Promise<void> {
    this.lastUsed = this.now();
    if (!this.ready) {
      this.ready = (async () => {
        await this.scrapeAll();
        await new Promise((r) => setTimeout(r, 1000));
        await this.scrapeAll();
        this.schedule();
      })().catch((e: unknown) => {
        // The next request starts afresh rather than failing for good.
        this.ready = undefined;
        throw e;
      });
    }
    return this.ready;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      if (this.now() - this.lastUsed > (this.o.idleMs ?? 10 * 60_000)) {
        // Idle: forget everything, the next request starts afresh.
        this.ready = undefined;
        this.scrapes.clear();
        return;
      }
      void this.scrapeAll().finally(() => this.schedule());
    }, this.o.resolutionMs ?? 15_000);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  async scrapeAll(): Promise<void> {
    const nodes = await this.o.nodes();
    const names = new Set(nodes.map((n) => n.metadata.name ?? ''));
    for (const n of this.scrapes.keys()) if (!names.has(n)) this.scrapes.delete(n);
    let next = 0;
    const worker = async () => {
      while (next < nodes.length) {
        const node = nodes[next++];
        const name = node.metadata.name ?? '';
        try {
          const text = await this.fetch(node);
          const s = this.scrapes.get(name);
          this.scrapes.set(name, { prev: s?.cur, cur: parseScrape(text, this.now()) });
        } catch (e) {
          this.o.log.debug('metrics scrape failed', { node: name, error: (e as Error).message });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, nodes.length) }, worker));
  }

  private fetch(node: KubeObject): Promise<string> {
    const at = kubeletEndpoint(node);
    if (!at) return Promise.reject(new Error('no address'));
    const k = this.o.kubelet;
    return new Promise((resolve, reject) => {
      const req = httpsRequest({
        host: at.host, port: at.port, path: '/metrics/resource', method: 'GET', ca: k.caPem, cert: k.certPem, key: k.keyPem,
        agent: false, servername: isIP(at.host) ? undefined : at.host, timeout: this.o.timeoutMs ?? 10_000,
      }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => { body += d; });
        res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`kubelet answered ${res.statusCode}: ${body.slice(0, 200)}`))));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', reject);
      req.end();
    });
  }

  nodeUsage(name: string): Usage | null {
    const s = this.scrapes.get(name);
    return s?.cur.node ? usageBetween(s.prev?.node, s.cur.node) : null;
  }

  /** Container name → usage, for a pod on `node`; null when the pod has no figures yet. */
  podUsage(node: string, namespace: string, pod: string): Map<string, Usage> | null {
    const s = this.scrapes.get(node);
    const cur = s?.cur.pods.get(`${namespace}/${pod}`);
    if (!cur) return null;
    const prev = s?.prev?.pods.get(`${namespace}/${pod}`);
    const out = new Map<string, Usage>();
    for (const [name, p] of cur) {
      const u = usageBetween(prev?.get(name), p);
      // metrics-server drops a pod when any of its containers has no rate yet.
      if (!u) return null;
      out.set(name, u);
    }
    return out;
  }
}
