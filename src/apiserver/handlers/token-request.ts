// POST serviceaccounts/NAME/token: a TokenRequest (authentication.k8s.io/v1) in, the same
// object with status.token and status.expirationTimestamp out, as kube-apiserver's
// TokenREST. The token is bound to the ServiceAccount's uid and, when asked, to a Pod, Secret
// or Node, and is good only while they exist (authn/service-account.ts checks).
import { isPlainObject, type KubeObject } from '../../api/object.js';
import { rfc3339 } from '../../api/time.js';
import { invalidValue, required, type FieldError } from '../../api/validation.js';
import { decodeBody, readBody } from '../body.js';
import { badRequest, conflict, invalid, methodNotAllowed, StatusError } from '../errors.js';
import { sendObject } from '../respond.js';
import type { Registries } from '../registry/index.js';
import {
  signServiceAccountToken, expirationExtensionSeconds, warnOnlyBoundTokenExpirationSeconds, type TokenIssuerConfig, type TokenSpec,
} from '../authn/service-account.js';
import type { HandlerContext } from './context.js';
import type { AdmissionChain } from '../admission.js';
import { writeWarnings } from './resource.js';

const minExpirationSeconds = 10 * 60;
const maxExpirationSecondsAllowed = 2 ** 32;
const group = 'authentication.k8s.io';

export async function createToken(h: HandlerContext, registries: Registries, cfg: TokenIssuerConfig, admission: AdmissionChain): Promise<void> {
  if (h.info.verb !== 'create') throw methodNotAllowed('the server does not allow this method on the requested resource');
  const ns = h.info.namespace;
  const name = h.info.name;
  const body = decodeBody(await readBody(h.req), h.req.headers['content-type']).value;
  if (!isPlainObject(body)) throw badRequest('TokenRequest must be an object');
  if (body.kind !== undefined && body.kind !== 'TokenRequest') throw badRequest(`TokenRequest expected, got ${String(body.kind)}`);
  if (body.apiVersion !== undefined && body.apiVersion !== `${group}/v1`) throw badRequest(`${group}/v1 TokenRequest expected, got ${String(body.apiVersion)}`);
  const meta = isPlainObject(body.metadata) ? body.metadata : {};
  if (meta.namespace && meta.namespace !== ns) throw badRequest(`namespace of the request (${String(meta.namespace)}) does not match the namespace of the URL (${ns})`);
  const spec = isPlainObject(body.spec) ? { ...body.spec } : {};
  spec.expirationSeconds ??= 3600;
  if (!Array.isArray(spec.audiences) || !spec.audiences.length) spec.audiences = cfg.apiAudiences;
  const errs = validateSpec(spec);
  if (errs.length) throw invalid('TokenRequest', group, name, errs);
  const request = { kind: 'TokenRequest', apiVersion: `${group}/v1`, metadata: { ...meta, name, namespace: ns }, spec } as KubeObject;
  await admission.admit({ operation: 'CREATE', info: h.info, user: h.user, registry: h.reg, object: request, dryRun: h.ctx.dryRun, warnings: h.warnings });

  const sa = await registries.get('', 'serviceaccounts')!.get(ns, name);
  const bound = await boundObjects(registries, ns, name, spec.boundObjectRef);
  let expirationSeconds = Number(spec.expirationSeconds);
  if (cfg.maxExpirationSeconds > 0 && expirationSeconds > cfg.maxExpirationSeconds) expirationSeconds = cfg.maxExpirationSeconds;
  spec.expirationSeconds = expirationSeconds;
  // Kubelets ask for 3607 s; such a pod token for the API server's own audiences lives a year
  // and is reported stale after 3607 s, so clients that never re-read their token keep working.
  const audiences = spec.audiences as string[];
  const extend = cfg.extendExpiration && bound.pod !== undefined && expirationSeconds === warnOnlyBoundTokenExpirationSeconds
    && audiences.every((a) => cfg.apiAudiences.includes(a));
  const now = h.ctx.now;
  const tokenSpec: TokenSpec = {
    issuer: cfg.issuer, serviceAccount: sa, audiences, nowMs: now.getTime(),
    expirationSeconds: extend ? expirationExtensionSeconds : expirationSeconds,
    warnAfterSeconds: extend ? warnOnlyBoundTokenExpirationSeconds : undefined,
    ...bound,
  };
  if (spec.boundObjectRef && bound.uid) spec.boundObjectRef = { ...spec.boundObjectRef, uid: bound.uid };
  const token = signServiceAccountToken(tokenSpec, cfg.keys);
  writeWarnings(h);
  sendObject(h.res, 201, {
    kind: 'TokenRequest', apiVersion: `${group}/v1`,
    metadata: { ...meta, name, namespace: ns, creationTimestamp: rfc3339(now) },
    spec,
    status: { token, expirationTimestamp: rfc3339(new Date(now.getTime() + expirationSeconds * 1000)) },
  }, h.accept === 'yaml' ? 'yaml' : 'json');
}

function validateSpec(spec: Record<string, unknown>): FieldError[] {
  const errs: FieldError[] = [];
  const exp = spec.expirationSeconds;
  if (typeof exp !== 'number' || !Number.isInteger(exp)) errs.push(invalidValue('spec.expirationSeconds', exp, 'must be an integer'));
  else if (exp < minExpirationSeconds) errs.push(invalidValue('spec.expirationSeconds', exp, 'may not specify a duration less than 10 minutes'));
  else if (exp > maxExpirationSecondsAllowed) errs.push(invalidValue('spec.expirationSeconds', exp, 'may not specify a duration larger than 2^32 seconds'));
  (spec.audiences as unknown[]).forEach((a, i) => { if (typeof a !== 'string' || !a) errs.push(required(`spec.audiences[${i}]`)); });
  const ref = spec.boundObjectRef;
  if (ref !== undefined && ref !== null) {
    if (!isPlainObject(ref)) errs.push(invalidValue('spec.boundObjectRef', ref, 'must be an object'));
    else if (!ref.name) errs.push(required('spec.boundObjectRef.name'));
  }
  return errs;
}

interface Bound { pod?: KubeObject; secret?: KubeObject; node?: KubeObject; uid?: string }

async function boundObjects(registries: Registries, ns: string, saName: string, ref: unknown): Promise<Bound> {
  if (!isPlainObject(ref)) return {};
  const kind = String(ref.kind ?? '');
  const apiVersion = String(ref.apiVersion ?? 'v1');
  const name = String(ref.name);
  if (apiVersion !== 'v1' || !['Pod', 'Secret', 'Node'].includes(kind)) throw badRequest(`cannot bind token to object of type ${kind}${apiVersion ? `, ${apiVersion}` : ''}`);
  const resource = kind === 'Pod' ? 'pods' : kind === 'Secret' ? 'secrets' : 'nodes';
  const obj = await registries.get('', resource)!.get(kind === 'Node' ? undefined : ns, name);
  if (ref.uid && ref.uid !== obj.metadata.uid) {
    throw conflict(resource, '', name, `the UID in the bound object reference (${String(ref.uid)}) does not match the UID in record. The object might have been deleted and then recreated`);
  }
  const uid = obj.metadata.uid as string;
  if (kind === 'Secret') return { secret: obj, uid };
  if (kind === 'Node') return { node: obj, uid };
  if ((obj.spec?.serviceAccountName ?? 'default') !== saName) throw badRequest(`cannot bind token for serviceaccount "${saName}" to pod running with different serviceaccount name.`);
  // The pod's node goes into the token as information; a node not (yet) found is left out.
  let node: KubeObject | undefined;
  if (obj.spec?.nodeName) {
    try {
      node = await registries.get('', 'nodes')!.get(undefined, obj.spec.nodeName);
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 404)) throw e;
    }
  }
  return { pod: obj, node, uid };
}

