// A kubelet certificate that renews itself (upstream k8s.io/client-go/util/certificate's
// manager): a new key and CSR when 70–90% of the current certificate's lifetime has passed
// (the jittered deadline spreads a fleet's renewals), retried with backoff on failure.
// `onRotate` hands each new pair to whoever presents it (the API client, the kubelet server).
import { generateKeyPairSync } from 'node:crypto';
import type { ClientsetAPI, Clock } from '../../client/index.js';
import { createCSR, type CSRSubject } from '../../pki/csr.js';
import { Backoff } from '../../util/index.js';
import { fallbacks } from '../../log/fallback.js';
import type { Logger } from '../../log/index.js';
import type { CertificatePair, CertificateStore } from './store.js';
import { requestCertificate } from './request.js';

export interface CertificateManagerOptions {
  store: CertificateStore;
  signerName: string;
  usages: string[];
  /** The subject and SANs to ask for (a serving certificate's addresses may change). */
  subject(): CSRSubject | Promise<CSRSubject>;
  /**
   * The client a request is made with: the bootstrap credentials while there is no valid
   * certificate, then (for a client certificate) the certificate itself, renewing as the node.
   */
  clients(current: CertificatePair | null): ClientsetAPI;
  clock: Clock;
  log: Logger;
  onRotate?(pair: CertificatePair): void;
  /** Asked of the signer (spec.expirationSeconds); unset leaves it to the signer. */
  expirationSeconds?: number;
  /** How long one request may wait for approval and issuance. */
  waitTimeoutMs?: number;
  random?: () => number;
}

/** When to renew: notBefore + (70…90%) of the lifetime, as upstream's jitteryDuration. */
export function rotationDeadline(notBefore: number, notAfter: number, random: () => number = Math.random): number {
  const total = notAfter - notBefore;
  return notBefore + total * (0.7 + 0.2 * random());
}

const MAX_TIMER_MS = 24 * 3600_000;

export class CertificateManager {
  private pair: CertificatePair | null;
  private timer: unknown;
  private stopped = false;
  private backoff = new Backoff({ initialMs: 2_000, maxMs: 5 * 60_000, jitter: 0.1 });
  private fallback;
  /** The deadline of the current certificate (ms on the clock). */
  deadline = 0;

  constructor(private opts: CertificateManagerOptions) {
    this.pair = opts.store.current();
    this.fallback = fallbacks('kubelet', opts.log);
  }

  get current(): CertificatePair | null {
    return this.pair;
  }

  private valid(p: CertificatePair | null): p is CertificatePair {
    return !!p && Date.parse(p.cert.validTo) > this.opts.clock.now();
  }

  /** Resolves once there is a valid certificate (requesting one if needed), then keeps it renewed. */
  async start(): Promise<CertificatePair> {
    if (!this.valid(this.pair)) await this.rotate();
    this.schedule();
    return this.pair!;
  }

  stop(): void {
    this.stopped = true;
    this.opts.clock.clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped || !this.pair) return;
    const c = this.pair.cert;
    this.deadline = rotationDeadline(Date.parse(c.validFrom), Date.parse(c.validTo), this.opts.random);
    this.arm(Math.max(0, this.deadline - this.opts.clock.now()));
  }

  private arm(ms: number): void {
    this.opts.clock.clearTimeout(this.timer);
    // Timers past 2^31 ms fire at once: a year-long certificate's deadline is waited for in steps.
    if (ms > MAX_TIMER_MS) this.timer = this.opts.clock.setTimeout(() => this.arm(ms - MAX_TIMER_MS), MAX_TIMER_MS);
    else this.timer = this.opts.clock.setTimeout(() => void this.renew(), ms);
  }

  private async renew(): Promise<void> {
    if (this.stopped) return;
    try {
      await this.rotate();
      this.backoff.reset();
      this.schedule();
    } catch (error) {
      const wait = this.backoff.next();
      this.fallback('certificate-renewal-failed', { error, once: this.opts.store.name, retryInMs: Math.round(wait) });
      if (!this.stopped) this.arm(wait);
    }
  }

  /** One new key, CSR and certificate, made current. */
  async rotate(): Promise<CertificatePair> {
    const o = this.opts;
    const keyPem = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({ format: 'pem', type: 'sec1' }) as string;
    const request = createCSR(keyPem, await o.subject());
    const clients = o.clients(this.valid(this.pair) ? this.pair : null);
    const certPem = await requestCertificate(clients, { request, signerName: o.signerName, usages: o.usages, expirationSeconds: o.expirationSeconds }, o.clock, o.waitTimeoutMs ?? 15 * 60_000);
    if (this.stopped) throw new Error('certificate manager stopped');
    this.pair = o.store.update(certPem, keyPem, new Date(o.clock.now()));
    o.log.info('certificate rotated', { store: o.store.name, notAfter: this.pair.cert.validTo, serial: this.pair.cert.serialNumber });
    o.onRotate?.(this.pair);
    return this.pair;
  }
}
