// The root CA publisher (a `kube-root-ca.crt` ConfigMap with the cluster CA in every namespace).
import type { ControllerContext } from '../framework.js';
import { RootCACertPublisher } from './controller.js';

export { RootCACertPublisher, rootCAConfigMapName, descriptionAnnotation, description } from './controller.js';

export function create(ctx: ControllerContext): RootCACertPublisher {
  if (!ctx.config.rootCAPem) throw new Error('root-ca-cert-publisher needs the cluster CA (--root-ca-file, or certificate-authority-data in the kubeconfig)');
  return new RootCACertPublisher(ctx, ctx.config.rootCAPem);
}
