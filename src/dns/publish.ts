// Makes this server reachable at the cluster DNS Service IP through the service proxy:
// the `kube-dns` Service in kube-system (created when missing, never rewritten: an operator
// may own it) and one EndpointSlice per node, managed by capstan-dns, naming this server's
// address. Level-based: `sync()` compares what exists with what should and converges; a
// timer and Service/EndpointSlice events call it, so a deleted slice comes back.
import { isIPv6 } from 'node:net';
import type { ObjectBase } from '../api/object.js';
import type { EndpointSlice, Service } from '../api/kinds.js';
import { isAlreadyExists, isConflict, isNotFound, resources, type ClientsetAPI } from '../client/index.js';
import type { Logger } from '../log/index.js';
import { Backoff, SyncRunner } from '../util/index.js';

export const SERVICE_NAMESPACE = 'kube-system';
export const SERVICE_NAME = 'kube-dns';
export const MANAGED_BY = 'capstan-dns';

export interface PublisherOptions {
  clients: ClientsetAPI;
  /** The cluster DNS Service IP (`--cluster-dns`). */
  serviceIP: string;
  nodeName: string;
  /** Where this server listens for the proxy's traffic (the node's address). */
  address: string;
  port: number;
  log: Logger;
}

export function desiredService(serviceIP: string): Service {
  return {
    apiVersion: 'v1', kind: 'Service',
    metadata: {
      name: SERVICE_NAME, namespace: SERVICE_NAMESPACE,
      labels: { 'k8s-app': 'kube-dns', 'kubernetes.io/name': 'capstan-dns', 'kubernetes.io/cluster-service': 'true' },
    },
    spec: {
      clusterIP: serviceIP,
      ports: [
        { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 },
        { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 },
      ],
    },
  };
}

export function sliceName(nodeName: string): string {
  return `${SERVICE_NAME}-${nodeName}`.toLowerCase().slice(0, 253);
}

export function desiredSlice(o: { nodeName: string; address: string; port: number }): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
    metadata: {
      name: sliceName(o.nodeName), namespace: SERVICE_NAMESPACE,
      labels: { 'kubernetes.io/service-name': SERVICE_NAME, 'endpointslice.kubernetes.io/managed-by': MANAGED_BY },
    },
    addressType: isIPv6(o.address) ? 'IPv6' : 'IPv4',
    endpoints: [{ addresses: [o.address], conditions: { ready: true, serving: true, terminating: false }, nodeName: o.nodeName }],
    ports: [
      { name: 'dns', port: o.port, protocol: 'UDP' },
      { name: 'dns-tcp', port: o.port, protocol: 'TCP' },
    ],
  };
}

export class KubeDNSPublisher {
  private timer?: NodeJS.Timeout;
  // A failed publish is retried soon, backing off, rather than at the next periodic kick:
  // until it succeeds, pods on this node have no cluster DNS.
  private readonly backoff = new Backoff({ initialMs: 250, maxMs: 30_000 });
  private readonly runner: SyncRunner = new SyncRunner(async () => {
    try {
      await this.sync();
      this.backoff.reset();
    } catch (err) {
      const retryMs = this.backoff.next();
      this.opts.log.warn('kube-dns publish failed', { error: (err as Error).message, retryMs });
      this.runner.retry(retryMs);
    }
  }, { startNow: true });

  constructor(private opts: PublisherOptions) {}

  start(intervalMs = 30_000): void {
    this.kick();
    this.timer = setInterval(() => this.kick(), intervalMs);
    this.timer.unref();
  }

  /** Runs `sync` soon; calls while one runs fold into one more run. */
  kick(): void {
    this.runner.request(0);
  }

  async sync(): Promise<void> {
    await this.ensureService();
    await this.ensureSlice();
  }

  /** Stops the timer and withdraws this node's endpoints, so the proxy stops sending here. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.race([this.runner.stop(), new Promise((r) => setTimeout(r, 5000).unref())]);
    try {
      // Bounded: an unreachable API server must not hold up the node's shutdown.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.opts.clients.resource(resources.endpointslices).delete(SERVICE_NAMESPACE, sliceName(this.opts.nodeName)),
        new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('timed out')), 5000); }),
      ]).finally(() => clearTimeout(timer));
    } catch (err) {
      if (!isNotFound(err)) this.opts.log.warn('could not remove kube-dns endpoints', { error: (err as Error).message });
    }
  }

  private async ensureService(): Promise<void> {
    const api = this.opts.clients.resource(resources.services);
    try {
      const svc = await api.get(SERVICE_NAMESPACE, SERVICE_NAME);
      if (svc.spec?.clusterIP !== this.opts.serviceIP) {
        this.opts.log.warn('kube-dns Service has another clusterIP; pods pointed at --cluster-dns will not reach it', { clusterIP: svc.spec?.clusterIP, want: this.opts.serviceIP });
      }
      return;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    try {
      await api.create(SERVICE_NAMESPACE, desiredService(this.opts.serviceIP));
      this.opts.log.info('created kube-dns Service', { clusterIP: this.opts.serviceIP });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  }

  private async ensureSlice(): Promise<void> {
    const api = this.opts.clients.resource(resources.endpointslices);
    const want = desiredSlice(this.opts);
    let have: EndpointSlice | undefined;
    try {
      have = await api.get(SERVICE_NAMESPACE, want.metadata.name!);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (!have) {
      try {
        await api.create(SERVICE_NAMESPACE, want);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        this.runner.request(0);
      }
      return;
    }
    const same = have.addressType === want.addressType
      && JSON.stringify(have.endpoints) === JSON.stringify(want.endpoints)
      && JSON.stringify(have.ports) === JSON.stringify(want.ports)
      && have.metadata.labels?.['kubernetes.io/service-name'] === SERVICE_NAME
      && have.metadata.labels?.['endpointslice.kubernetes.io/managed-by'] === MANAGED_BY;
    if (same) return;
    try {
      await api.update({ ...want, metadata: { ...have.metadata, labels: { ...have.metadata.labels, ...want.metadata.labels } } });
    } catch (err) {
      if (!isConflict(err)) throw err;
      this.runner.request(0);
    }
  }
}

/** Does this object concern what the publisher keeps? (Service or slice events call `kick`.) */
export function concernsPublisher(o: ObjectBase, nodeName: string): boolean {
  if (o.metadata.namespace !== SERVICE_NAMESPACE) return false;
  return o.metadata.name === SERVICE_NAME || o.metadata.name === sliceName(nodeName);
}
