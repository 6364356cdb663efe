// The hollow kubelets' HTTPS API: one listener per node address (listeners.ts) and, per
// node, a TLS server that is never bound itself: listeners hand it their connections. Each
// node's serving certificate is issued by the cluster CA as the real kubelet's is
// (CN system:node:<name>, O system:nodes, the node's address as IP SAN), on the node's
// first connection, so the API server verifies the address it dialled. All nodes share one
// key, generated off the main thread on the first connection: an RSA key costs 0.1–0.6 s of
// CPU here, signing a certificate a few ms. Clients must present a certificate of the
// cluster CA, as with the real kubelet (the API server comes as kube-apiserver-kubelet-client).
import { generateKeyPair } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { Socket } from 'node:net';
import { promisify } from 'node:util';
import { issueCert, type KeyPair } from '../pki/index.js';
import type { Logger } from '../log/index.js';
import type { Pod } from '../api/kinds.js';
import { handleRequest, handleUpgrade } from './kubelet-api.js';
import { listenOnAll } from './listeners.js';
import { HollowUsage } from './usage.js';

export interface HollowKubeletServerOptions {
  /** Node names and their addresses, index for index. */
  names: readonly string[];
  addresses: readonly string[];
  /** 0 (default): one free port, picked once, for every address. */
  port?: number;
  /** The cluster CA; without it connections are refused (nothing could verify them). */
  ca?: KeyPair;
  pod(namespace: string, name: string): Pod | undefined;
  /** The pods bound to a node (for its stats). */
  podsOn?(node: string): Pod[];
  log: Logger;
}

export interface HollowKubeletServer {
  port: number;
  stop(): Promise<void>;
}

export async function startHollowKubeletServer(o: HollowKubeletServerOptions): Promise<HollowKubeletServer> {
  const servers = new Map<number, Server>();
  const started = new Date().toISOString();
  const sockets = new Set<Socket>();
  let sharedKey: Promise<string> | undefined;
  const key = () => (sharedKey ??= promisify(generateKeyPair)('rsa', {
    modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' },
  }).then((k) => k.privateKey));
  const serverFor = async (i: number, ca: KeyPair): Promise<Server> => {
    const keyPem = await key();
    let s = servers.get(i);
    if (s) return s;
    const node = o.names[i];
    const serving = issueCert(ca, { commonName: `system:node:${node}`, organizations: ['system:nodes'], ipAddresses: [o.addresses[i]], dnsNames: [node], usage: 'server', keyPem });
    const ctx = { node, pod: o.pod, pods: o.podsOn && (() => o.podsOn!(node)), usage: new HollowUsage(), started };
    s = createServer({ cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true }, (req, res) => handleRequest(ctx, req, res));
    s.on('upgrade', (req, socket) => handleUpgrade(ctx, req, socket));
    s.on('tlsClientError', () => undefined);
    servers.set(i, s);
    return s;
  };
  const listeners = await listenOnAll(o.addresses, o.port ?? 0, (i, socket) => {
    if (!o.ca) return void socket.destroy();
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    // A client that goes while the certificate is being made must not crash the process.
    socket.on('error', () => undefined);
    // The socket reads nothing until the TLS server takes it over (listeners pause on connect).
    serverFor(i, o.ca).then((s) => { if (!socket.destroyed) s.emit('connection', socket); }, (e: Error) => {
      o.log.error('hollow kubelet API: no serving certificate', { node: o.names[i], error: e.message });
      socket.destroy();
    });
  });
  if (!o.ca) o.log.warn('no cluster CA: the hollow kubelet API refuses connections (pods/log and pods/exec of hollow pods fail)', { port: listeners.port });
  return {
    port: listeners.port,
    async stop() {
      const closed = listeners.close();
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
