// Encryption at rest (`--encryption-provider-config`): which value transformer each resource's
// registry stores through. A resource matches its own rule, else `*.<group>`, else `*.*`;
// with none it is stored plain, as in kube-apiserver.
import type { OperationRecorder, TransformOperation, ValueTransformer } from './transformer.js';
import { prefixTransformer } from './transformer.js';
import { grKey, grText, type EncryptionConfiguration, type GroupResource, type ProviderConfig } from './config.js';

export { loadEncryptionConfiguration, parseEncryptionConfiguration, EncryptionConfigError } from './config.js';
export type { EncryptionConfiguration } from './config.js';
export { identity, TransformError } from './transformer.js';
export type { ValueTransformer, TransformOperation } from './transformer.js';

/** Counts one operation for a resource (`secrets`, `deployments.apps`). */
export type ResourceOperationRecorder = (resource: string, op: TransformOperation) => void;

export class ResourceTransformers {
  private readonly providers = new Map<string, ProviderConfig[]>();

  constructor(config: EncryptionConfiguration, private readonly record: ResourceOperationRecorder = () => undefined) {
    // A resource named in several rules reads through all of them; the first rule writes.
    for (const rule of config.rules) {
      for (const gr of rule.resources) this.providers.set(grKey(gr), [...(this.providers.get(grKey(gr)) ?? []), ...rule.providers]);
    }
  }

  /** The transformer for a resource as it is stored, or undefined when no rule covers it. */
  for(gr: GroupResource): ValueTransformer | undefined {
    const providers = this.providers.get(grKey(gr)) ?? this.providers.get(grKey({ group: gr.group, resource: '*' })) ?? this.providers.get(grKey({ group: '*', resource: '*' }));
    if (!providers) return undefined;
    const resource = grText(gr);
    const recorder: OperationRecorder = (op) => this.record(resource, op);
    return prefixTransformer(providers, recorder);
  }
}
