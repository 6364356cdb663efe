// An API server with the controller-manager's CSR approver and signer (the cluster CA's
// files), a temp dir and the admin kubeconfig: what certificate tests start from. All of it
// is stopped and removed when `t` ends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControllerManager } from '../../src/cli/controller-manager.js';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import { ensureNodeBootstrapRBAC } from '../../src/cli/node-bootstrap.js';
import { clientsetFromKubeconfig } from '../../src/client/index.js';
import { startAPIServer, type TestAPIServer } from './api.js';
import type { Teardownable } from './apiserver-process.js';

export interface CSRCluster {
  api: TestAPIServer;
  /** https://127.0.0.1:<port> */
  server: string;
  /** The admin kubeconfig. */
  admin: string;
  /** A temp dir for the test's files. */
  dir: string;
}

export async function startCSRCluster(t: Teardownable, prefix: string): Promise<CSRCluster> {
  const api = await startAPIServer(t);
  const dir = mkdtempSync(join(tmpdir(), `capstan-${prefix}-`));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const server = `https://127.0.0.1:${api.port}`;
  const admin = writeAdminKubeconfig(api.dir, api.pki, server);
  const clients = clientsetFromKubeconfig(admin, 'csr-cluster');
  try { await ensureNodeBootstrapRBAC(clients); } finally { clients.close(); }
  const cm = await startControllerManager(['--kubeconfig', admin, '--controllers', 'csrapproving,csrsigning', '--leader-elect', 'false', '--secure-port', '0',
    '--cluster-signing-cert-file', join(api.dir, 'pki', 'ca.crt'), '--cluster-signing-key-file', join(api.dir, 'pki', 'ca.key')]);
  t.teardown(() => cm.stop());
  return { api, server, admin, dir };
}
