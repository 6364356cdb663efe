// Certificate signing requests: the approver (csrapproving), the signer (csrsigning) and the cleaner (csrcleaner).
import { readFileSync } from 'node:fs';
import type { Controller, ControllerContext } from '../framework.js';
import { CSRApprovingController } from './approver.js';
import { CSRSigningController } from './signer.js';

export { CSRApprovingController } from './approver.js';
export { CSRSigningController } from './signer.js';
export { CSRCleanerController, cleanupDeadline } from './cleaner.js';
import { CSRCleanerController } from './cleaner.js';

export function createCleaner(ctx: ControllerContext): CSRCleanerController {
  return new CSRCleanerController(ctx);
}

export function createApprover(ctx: ControllerContext): CSRApprovingController {
  return new CSRApprovingController(ctx);
}

/** Without the cluster CA's files the signer has nothing to sign with: it idles, as upstream. */
export function createSigner(ctx: ControllerContext): Controller {
  const { clusterSigningCertFile: certFile, clusterSigningKeyFile: keyFile } = ctx.config;
  if (!certFile || !keyFile) {
    ctx.log.warn('csrsigning: no --cluster-signing-cert-file/--cluster-signing-key-file, certificate requests will not be signed');
    return { name: 'csrsigning', run: async () => undefined, stop: async () => undefined };
  }
  const ca = { certPem: readFileSync(certFile, 'utf8'), keyPem: readFileSync(keyFile, 'utf8') };
  return new CSRSigningController(ctx, { ca, durationMs: ctx.config.clusterSigningDurationMs });
}
