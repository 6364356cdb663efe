// An admission (or CRD conversion) webhook for tests: HTTPS on loopback with a certificate
// from its own CA (for the caBundle), answering each AdmissionReview (or ConversionReview:
// the review's own apiVersion and kind are answered) with what `answer` returns. Counts TLS
// connections, so tests can see keep-alive at work.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCA, issueCert } from '../../src/pki/index.js';
import type { Teardownable } from './apiserver-process.js';

export interface ReviewRequest {
  uid: string;
  operation: string;
  object: any;
  oldObject: any;
  dryRun: boolean;
  namespace?: string;
  name?: string;
  userInfo: { username: string };
  [k: string]: any;
}

export interface WebhookServer {
  port: number;
  caBundle: string;
  reviews: { path: string; request: ReviewRequest }[];
  connections: number;
  close(): Promise<void>;
}

export type Answer = (request: ReviewRequest, path: string) => Record<string, unknown> | null | Promise<Record<string, unknown> | null>;

/** `answer` returns the response's fields besides uid (or null to never answer). */
export async function startWebhookServer(t: Teardownable, answer: Answer, dnsNames: string[] = []): Promise<WebhookServer> {
  const ca = createCA('webhook-test-ca');
  const cert = issueCert(ca, { commonName: 'webhook', ipAddresses: ['127.0.0.1'], dnsNames, usage: 'server' });
  const state: WebhookServer = { port: 0, caBundle: Buffer.from(ca.certPem).toString('base64'), reviews: [], connections: 0, close: async () => undefined };
  const server: Server = createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const path = new URL(req.url ?? '/', 'https://x').pathname;
      state.reviews.push({ path, request: review.request });
      const response = await answer(review.request, path);
      if (response === null) return;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: review.apiVersion ?? 'admission.k8s.io/v1', kind: review.kind ?? 'AdmissionReview', response: { uid: review.request.uid, ...response } }));
    });
  });
  server.on('secureConnection', () => { state.connections++; });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  state.port = (server.address() as AddressInfo).port;
  state.close = () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); });
  t.teardown(() => state.close());
  return state;
}

/** A JSONPatch as a webhook returns it. */
export const jsonPatch = (ops: unknown[]): { patch: string; patchType: 'JSONPatch' } => ({ patch: Buffer.from(JSON.stringify(ops)).toString('base64'), patchType: 'JSONPatch' });
