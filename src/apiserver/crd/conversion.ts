// Conversion of custom resources between versions: the pluggable step between a request's
// version and the storage version. `None` rewrites apiVersion only (synchronous); `Webhook`
// asks the CRD's conversion webhook (conversion-webhook.ts), which needs I/O: the versions it
// converts are served through VersionDef's asynchronous hooks (resource-def.ts).
import type { KubeObject } from '../../api/object.js';
import type { CRDSpec } from '../../api/apiextensions/validation.js';
import type { ObjectReader } from '../admission/webhook/client.js';
import { webhookConverter, type AsyncConverter } from './conversion-webhook.js';

export interface Converter {
  /** `obj` (carrying its apiVersion) in `apiVersion`; never mutates `obj`'s nested values it keeps. */
  convert(obj: KubeObject, apiVersion: string): KubeObject;
}

export const noneConverter: Converter = {
  convert: (obj, apiVersion) => ({ ...obj, apiVersion }),
};

export type AnyConverter = { sync: Converter } | { async: AsyncConverter };

/** `read` finds a webhook service's endpoints. */
export function converterFor(spec: CRDSpec, read?: ObjectReader): AnyConverter {
  if (spec.conversion?.strategy !== 'Webhook') return { sync: noneConverter };
  if (!read) throw new Error(`${spec.names.plural}.${spec.group}: a conversion webhook needs a service reader`);
  return { async: webhookConverter(spec, read) };
}
