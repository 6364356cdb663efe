// certificates.k8s.io/v1 CertificateSigningRequests (after upstream pkg/registry/certificates):
// the spec is the requester's and immutable, with username/uid/groups/extra taken from who
// created it, never from the body; /approval writes only the Approved and Denied conditions
// (`kubectl certificate approve|deny`); /status is the signer's (the certificate, other
// conditions) and cannot approve.
import type { Fields, KubeObject } from '../../../api/object.js';
import { rfc3339 } from '../../../api/time.js';
import { duplicate, forbiddenField, invalidValue, notSupported, required, type FieldError } from '../../../api/validation.js';
import { certificateBlocks, CSRError, parseCSR } from '../../../pki/csr.js';
import type { RequestContext, ResourceDef, Strategy } from '../types.js';
import { ageColumn, col, humanAge, identityVersion } from '../common.js';

export const keyUsages = [
  'signing', 'digital signature', 'content commitment', 'key encipherment', 'key agreement', 'data encipherment',
  'cert sign', 'crl sign', 'encipher only', 'decipher only', 'any', 'server auth', 'client auth', 'code signing',
  'email protection', 's/mime', 'ipsec end system', 'ipsec tunnel', 'ipsec user', 'timestamping', 'ocsp signing',
  'microsoft sgc', 'netscape sgc',
];

const approvalTypes = ['Approved', 'Denied'];
const decode = (b64: unknown): string => (typeof b64 === 'string' ? Buffer.from(b64, 'base64').toString('utf8') : '');
const conditions = (o: KubeObject): Fields[] => (o.status?.conditions ?? []) as Fields[];

/** Approved (and not Denied or Failed), as upstream's IsCertificateRequestApproved. */
export function isApproved(o: KubeObject): boolean {
  let approved = false;
  for (const c of conditions(o)) {
    if (c.status !== 'True') continue;
    if (c.type === 'Denied' || c.type === 'Failed') return false;
    if (c.type === 'Approved') approved = true;
  }
  return approved;
}

// `example.com/signer-name`: a DNS subdomain, a slash, a path of at least one character.
function validateSignerName(name: unknown): FieldError[] {
  if (typeof name !== 'string' || !name) return [required('spec.signerName')];
  const slash = name.indexOf('/');
  const domain = name.slice(0, slash);
  if (slash < 1 || slash === name.length - 1 || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/.test(domain)) {
    return [invalidValue('spec.signerName', name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  }
  return [];
}

function validate(o: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = o.spec ?? {};
  try {
    parseCSR(decode(spec.request));
  } catch (e) {
    if (!(e instanceof CSRError)) throw e;
    errs.push(invalidValue('spec.request', '<request>', e.message));
  }
  errs.push(...validateSignerName(spec.signerName));
  const usages = spec.usages as unknown;
  if (!Array.isArray(usages) || !usages.length) errs.push(required('spec.usages', 'usages must be provided'));
  else {
    const seen = new Set<unknown>();
    usages.forEach((u, i) => {
      if (!keyUsages.includes(u)) errs.push(notSupported(`spec.usages[${i}]`, u, keyUsages));
      if (seen.has(u)) errs.push(duplicate(`spec.usages[${i}]`, u));
      seen.add(u);
    });
  }
  const es = spec.expirationSeconds;
  if (es !== undefined && es !== null && (!Number.isInteger(es) || es < 600)) {
    errs.push(invalidValue('spec.expirationSeconds', es, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  const types = new Set<string>();
  conditions(o).forEach((c, i) => {
    const f = `status.conditions[${i}]`;
    if (!c.type) errs.push(required(`${f}.type`));
    else if (types.has(c.type) && ['Approved', 'Denied', 'Failed'].includes(c.type)) errs.push(duplicate(`${f}.type`, c.type));
    types.add(c.type);
    if (!c.status) errs.push(required(`${f}.status`));
    else if (['Approved', 'Denied', 'Failed'].includes(c.type) && c.status !== 'True') errs.push(notSupported(`${f}.status`, c.status, ['True']));
    else if (!['True', 'False', 'Unknown'].includes(c.status)) errs.push(notSupported(`${f}.status`, c.status, ['True', 'False', 'Unknown']));
  });
  if (types.has('Approved') && types.has('Denied')) errs.push(invalidValue('status.conditions', conditions(o).map((c) => c.type), 'Approved and Denied conditions are mutually exclusive'));
  const cert = o.status?.certificate;
  if (cert) {
    try {
      certificateBlocks(decode(cert));
    } catch (e) {
      if (!(e instanceof CSRError)) throw e;
      errs.push(invalidValue('status.certificate', '<certificate data>', e.message));
    }
    if (!isApproved(o)) errs.push(invalidValue('status.certificate', '<certificate data>', 'certificate can only be set once the request is approved'));
  }
  return errs;
}

function validateUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const oldCert = old.status?.certificate;
  if (oldCert && o.status?.certificate !== oldCert) errs.push(invalidValue('status.certificate', '<certificate data>', 'updates may not modify existing certificate content'));
  for (const type of ['Approved', 'Denied', 'Failed']) {
    if (conditions(old).some((c) => c.type === type) && !conditions(o).some((c) => c.type === type)) {
      errs.push(forbiddenField('status.conditions', `updates may not remove a condition of type "${type}"`));
    }
  }
  return errs;
}

/** Times the writer left unset, as upstream's populateConditionTimestamps. */
function stampConditions(o: KubeObject, old: KubeObject | undefined, now: Date): void {
  for (const c of conditions(o)) {
    c.lastUpdateTime ??= rfc3339(now);
    if (!c.lastTransitionTime) {
      const before = old && conditions(old).find((p) => p.type === c.type);
      c.lastTransitionTime = before && before.status === c.status && before.lastTransitionTime ? before.lastTransitionTime : rfc3339(now);
    }
  }
}

function keepSpec(o: KubeObject, old: KubeObject): void {
  o.spec = structuredClone(old.spec);
}

const mainStrategy: Strategy = {
  prepareForCreate(o, ctx: RequestContext) {
    delete o.status;
    const { username, uid, groups, extra } = ctx.user;
    o.spec = { ...o.spec, username, uid: uid ?? '', groups: [...groups], extra: extra ? structuredClone(extra) : undefined };
    if (!o.spec.uid) delete o.spec.uid;
    if (!o.spec.extra) delete o.spec.extra;
  },
  prepareForUpdate(o, old) {
    keepSpec(o, old);
    if (old.status === undefined) delete o.status;
    else o.status = structuredClone(old.status);
  },
  validate,
  validateUpdate,
};

// The signer's endpoint: approval decisions stay what they were.
const statusStrategy: Strategy = {
  prepareForUpdate(o, old, ctx) {
    const metadata = { ...structuredClone(old.metadata), resourceVersion: o.metadata.resourceVersion, managedFields: o.metadata.managedFields };
    const status = { ...o.status };
    status.conditions = [...conditions(old).filter((c) => approvalTypes.includes(c.type)), ...((status.conditions ?? []) as Fields[]).filter((c) => !approvalTypes.includes(c.type))];
    Object.assign(o, { metadata, status });
    keepSpec(o, old);
    stampConditions(o, old, ctx.now);
  },
  validate,
  validateUpdate,
};

// The approver's endpoint: only Approved and Denied change.
const approvalStrategy: Strategy = {
  prepareForUpdate(o, old, ctx) {
    const metadata = { ...structuredClone(old.metadata), resourceVersion: o.metadata.resourceVersion, managedFields: o.metadata.managedFields };
    const mine = conditions(o).filter((c) => approvalTypes.includes(c.type));
    const status: Fields = { ...structuredClone(old.status ?? {}), conditions: [...mine, ...conditions(old).filter((c) => !approvalTypes.includes(c.type))] };
    Object.assign(o, { metadata, status });
    keepSpec(o, old);
    stampConditions(o, old, ctx.now);
  },
  validate,
  validateUpdate,
};

/** kubectl's CONDITION column: Pending, or the true conditions and Issued. */
function conditionText(o: KubeObject): string {
  const parts: string[] = [];
  for (const c of conditions(o)) if (['Approved', 'Denied', 'Failed'].includes(c.type)) parts.push(c.status === 'True' ? c.type : `${c.type}(${c.status})`);
  if (o.status?.certificate) parts.push('Issued');
  return parts.length ? parts.join(',') : 'Pending';
}

const requestedDuration = (o: KubeObject, now: Date): string => {
  const es = o.spec?.expirationSeconds;
  return typeof es === 'number' ? humanAge(new Date(now.getTime() - es * 1000).toISOString(), now) : '<none>';
};

export const certificatesigningrequests: ResourceDef = {
  group: 'certificates.k8s.io', resource: 'certificatesigningrequests', singular: 'certificatesigningrequest',
  kind: 'CertificateSigningRequest', listKind: 'CertificateSigningRequestList', namespaced: false, shortNames: ['csr'],
  versions: [identityVersion('v1', 'io.k8s.api.certificates.v1.CertificateSigningRequest')],
  storageVersion: 'v1',
  strategy: mainStrategy,
  statusStrategy,
  subresourceStrategies: { approval: approvalStrategy },
  extraSubresources: ['approval'],
  fieldLabels: (o) => ({ 'spec.signerName': String(o.spec?.signerName ?? '') }),
  columns: [
    ageColumn,
    col('SignerName', 'The signer the request is for.', (o) => o.spec?.signerName ?? ''),
    col('Requestor', 'Who created the request.', (o) => o.spec?.username ?? ''),
    col('RequestedDuration', 'The validity asked for.', requestedDuration),
    col('Condition', 'Approval and issuance.', conditionText),
  ],
};
