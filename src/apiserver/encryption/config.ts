// The file behind `--encryption-provider-config`: an apiserver.config.k8s.io/v1
// EncryptionConfiguration (YAML or JSON), decoded strictly and validated with upstream's rules
// and messages (k8s.io/apiserver's validation_encryption.go), so a bad file stops the server
// with the field that is wrong. KMS providers parse but are refused: capstan has no KMS plugin
// client.
import { readFileSync } from 'node:fs';
import yaml from 'js-yaml';
import { duplicate, forbiddenField, invalidValue, required, type FieldError } from '../../api/validation.js';
import { fieldErrorText } from '../errors.js';

export type CipherName = 'aescbc' | 'aesgcm' | 'secretbox';

export interface KeyConfig {
  name: string;
  secret: Buffer;
}

export type ProviderConfig = { type: 'identity' } | { type: CipherName; keys: KeyConfig[] };

/** A resource as the file names it: `secrets`, `deployments.apps`, `*.apps`, `*.` or `*.*`. */
export interface GroupResource {
  group: string;
  resource: string;
}

export interface ResourceRule {
  resources: GroupResource[];
  /** The first one writes; all of them read. */
  providers: ProviderConfig[];
}

export interface EncryptionConfiguration {
  rules: ResourceRule[];
}

export class EncryptionConfigError extends Error {
  override name = 'EncryptionConfigError';
}

const apiVersion = 'apiserver.config.k8s.io/v1';
const kinds = ['EncryptionConfiguration', 'EncryptionConfig'];
const cipherNames: CipherName[] = ['aesgcm', 'aescbc', 'secretbox'];
const providerNames = ['kms', 'aesgcm', 'aescbc', 'secretbox', 'identity'];
const keySizes: Record<CipherName, number[]> = { aescbc: [16, 24, 32], aesgcm: [16, 24, 32], secretbox: [32] };

/** Reads and validates the file; throws EncryptionConfigError saying what is wrong. */
export function loadEncryptionConfiguration(path: string): EncryptionConfiguration {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new EncryptionConfigError(`error reading encryption provider configuration file "${path}": ${(e as Error).message}`);
  }
  if (text.trim() === '') throw new EncryptionConfigError(`encryption provider configuration file "${path}" is empty`);
  return parseEncryptionConfiguration(text, path);
}

export function parseEncryptionConfiguration(text: string, source = 'encryption provider configuration'): EncryptionConfiguration {
  let doc: unknown;
  try {
    doc = yaml.load(text, { json: false });
  } catch (e) {
    throw new EncryptionConfigError(`error decoding encryption provider configuration file "${source}": ${(e as Error).message.split('\n')[0]}`);
  }
  const decodeErrors = decode(doc);
  if (decodeErrors.length) throw new EncryptionConfigError(`error decoding encryption provider configuration file "${source}": ${decodeErrors.join(', ')}`);
  const errs = validate(doc as RawConfig);
  if (errs.length) {
    const text = errs.map(fieldErrorText);
    throw new EncryptionConfigError(`error while parsing file "${source}": ${text.length === 1 ? text[0] : `[${text.join(', ')}]`}`);
  }
  const config = build(doc as RawConfig);
  const masked = maskedResource(config);
  if (masked) throw new EncryptionConfigError(`error while building transformers: ${masked}`);
  return config;
}

interface RawKey { name?: string; secret?: string }
interface RawProvider { [name: string]: { keys?: RawKey[] } | undefined }
interface RawConfig { resources: { resources?: string[]; providers?: RawProvider[] }[] }

// Strict decoding: types as the Go structs declare them, and no field they do not have.
function decode(doc: unknown): string[] {
  const errs: string[] = [];
  const unknown = (path: string) => errs.push(`strict decoding error: unknown field "${path}"`);
  const typeError = (path: string, want: string, got: unknown) =>
    errs.push(`${path}: cannot unmarshal ${Array.isArray(got) ? 'array' : got === null ? 'null' : typeof got} into ${want}`);
  if (!isObject(doc)) return ['the file does not hold an object'];
  if (doc.apiVersion !== apiVersion && !(doc.kind === 'EncryptionConfig' && doc.apiVersion === 'v1')) {
    return [`no kind "${String(doc.kind)}" is registered for version "${String(doc.apiVersion)}" (want apiVersion ${apiVersion}, kind EncryptionConfiguration)`];
  }
  if (!kinds.includes(doc.kind as string)) return [`no kind "${String(doc.kind)}" is registered for version "${String(doc.apiVersion)}"`];
  for (const k of Object.keys(doc)) if (!['apiVersion', 'kind', 'resources'].includes(k)) unknown(k);
  if (doc.resources === undefined || doc.resources === null) { doc.resources = []; return errs; }
  if (!Array.isArray(doc.resources)) { typeError('resources', 'a list', doc.resources); return errs; }
  doc.resources.forEach((rule: unknown, i: number) => {
    const at = `resources[${i}]`;
    if (!isObject(rule)) return typeError(at, 'an object', rule);
    for (const k of Object.keys(rule)) if (k !== 'resources' && k !== 'providers') unknown(`${at}.${k}`);
    if (rule.resources != null && (!Array.isArray(rule.resources) || rule.resources.some((r) => typeof r !== 'string'))) typeError(`${at}.resources`, 'a list of strings', rule.resources);
    if (rule.providers == null) return;
    if (!Array.isArray(rule.providers)) return typeError(`${at}.providers`, 'a list', rule.providers);
    rule.providers.forEach((p: unknown, j: number) => {
      const pat = `${at}.providers[${j}]`;
      if (!isObject(p)) return typeError(pat, 'an object', p);
      for (const [name, body] of Object.entries(p)) {
        if (!providerNames.includes(name)) { unknown(`${pat}.${name}`); continue; }
        if (body !== null && !isObject(body)) { typeError(`${pat}.${name}`, 'an object', body); continue; }
        if (name === 'kms' || !body) continue;
        for (const k of Object.keys(body)) if (name === 'identity' || k !== 'keys') unknown(`${pat}.${name}.${k}`);
        if (name === 'identity' || body.keys == null) continue;
        if (!Array.isArray(body.keys)) { typeError(`${pat}.${name}.keys`, 'a list', body.keys); continue; }
        body.keys.forEach((key: unknown, n: number) => {
          const kat = `${pat}.${name}.keys[${n}]`;
          if (!isObject(key)) return typeError(kat, 'an object', key);
          for (const k of Object.keys(key)) if (k !== 'name' && k !== 'secret') unknown(`${kat}.${k}`);
          for (const f of ['name', 'secret']) if (key[f] != null && typeof key[f] !== 'string') typeError(`${kat}.${f}`, 'a string', key[f]);
        });
      }
    });
  });
  return errs;
}

function validate(c: RawConfig): FieldError[] {
  if (c.resources.length === 0) return [required('resources', 'at least one resources is required')];
  const errs: FieldError[] = [];
  c.resources.forEach((rule, i) => {
    const r = `resources[${i}].resources`;
    const p = `resources[${i}].providers`;
    const resources = rule.resources ?? [];
    if (resources.length === 0) errs.push(required(r, `at least one ${r} is required`));
    errs.push(...validateResourceOverlap(resources, r), ...validateResourceNames(resources, r));
    const providers = rule.providers ?? [];
    if (providers.length === 0) errs.push(required(p, `at least one ${p} is required`));
    providers.forEach((provider, j) => {
      const at = `${p}[${j}]`;
      const present = Object.keys(provider).filter((k) => provider[k] !== undefined);
      if (present.length === 0) return errs.push(invalidValue(at, provider, 'provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity'));
      if (present.length > 1) return errs.push(invalidValue(at, provider, 'more than one provider specified in a single element, should split into different list elements'));
      const name = present[0];
      if (name === 'kms') return errs.push(forbiddenField(`${at}.kms`, 'KMS providers are not supported by capstan; use aesgcm, aescbc or secretbox'));
      if (name !== 'identity') errs.push(...validateKeys(provider[name]?.keys ?? [], `${at}.${name}.keys`, keySizes[name as CipherName]));
    });
  });
  return errs;
}

function validateKeys(keys: RawKey[], at: string, sizes: number[]): FieldError[] {
  if (keys.length === 0) return [required(at, 'at least one keys is required')];
  const errs: FieldError[] = [];
  const seen = new Set<string>();
  keys.forEach((key, i) => {
    const kat = `${at}[${i}]`;
    if (!key.name) errs.push(required(`${kat}.name`, 'name is a mandatory field for a key'));
    else if (seen.has(key.name)) errs.push(duplicate(`${kat}.name`, key.name));
    else seen.add(key.name);
    if (!key.secret) return errs.push(required(`${kat}.secret`, 'secret is a mandatory field for a key'));
    const secret = decodeBase64(key.secret);
    if (!secret) return errs.push(invalidValue(`${kat}.secret`, 'REDACTED', 'secrets must be base64 encoded'));
    if (!sizes.includes(secret.length)) errs.push(invalidValue(`${kat}.secret`, 'REDACTED', `secret is not of the expected length, got ${secret.length}, expected one of [${sizes.join(' ')}]`));
  });
  return errs;
}

function validateResourceOverlap(resources: string[], at: string): FieldError[] {
  if (resources.length < 2) return [];
  const grs = resources.map(parseGroupResource);
  let overlap = false, dup = false;
  grs.forEach((a, i) => grs.forEach((b, j) => {
    if (i === j) return;
    if (a.group === b.group && a.resource === b.resource) { dup = true; return; }
    if (a.group === '*' && a.resource === '*') overlap = true;
    else if (a.group === b.group && (a.resource === '*' || b.resource === '*')) overlap = true;
  }));
  const errs: FieldError[] = [];
  if (dup) errs.push(invalidValue(at, resources, 'the same resource cannot be specified multiple times'));
  if (overlap) errs.push(invalidValue(at, resources, "using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked"));
  return errs;
}

function validateResourceNames(resources: string[], at: string): FieldError[] {
  const errs: FieldError[] = [];
  resources.forEach((res, j) => {
    const bad = (why: string) => errs.push(invalidValue(`${at}[${j}]`, res, why));
    const gr = parseGroupResource(res);
    if (res.toLowerCase() !== res) bad('resource name should not contain capital letters');
    else if (res === '*') bad("use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources");
    else if (['apiserveripinfo', 'serviceipallocations', 'servicenodeportallocations'].includes(res)) bad('resources which do not have REST API/s cannot be encrypted');
    else if (gr.group === 'events.k8s.io') bad("'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file");
    else if (gr.group === 'extensions') bad("'extensions' group has been removed and cannot be used for encryption");
    else if (gr.group === '*' && gr.resource !== '*') bad('encrypting the same resource across groups is not supported');
  });
  return errs;
}

// A later rule for a resource that `*.group` or `*.*` in an earlier rule already covers would
// never apply: upstream refuses the file.
function maskedResource(config: EncryptionConfiguration): string | undefined {
  const seen = new Set<string>();
  for (const rule of config.rules) {
    for (const gr of rule.resources) {
      for (const wider of [{ group: gr.group, resource: '*' }, { group: '*', resource: '*' }]) {
        if (seen.has(grKey(wider))) return `resource "${grText(gr)}" is masked by earlier rule "${grText(wider)}"`;
      }
    }
    for (const gr of rule.resources) seen.add(grKey(gr));
  }
  return undefined;
}

function build(c: RawConfig): EncryptionConfiguration {
  return {
    rules: c.resources.map((rule) => ({
      resources: (rule.resources ?? []).map(parseGroupResource),
      providers: (rule.providers ?? []).map((p): ProviderConfig => {
        if (p.identity !== undefined) return { type: 'identity' };
        const type = cipherNames.find((n) => p[n] !== undefined)!;
        return { type, keys: (p[type]!.keys ?? []).map((k) => ({ name: k.name!, secret: decodeBase64(k.secret!)! })) };
      }),
    })),
  };
}

/** `deployments.apps` → {resource: deployments, group: apps}; `secrets` → core. */
export function parseGroupResource(s: string): GroupResource {
  const dot = s.indexOf('.');
  return dot < 0 ? { group: '', resource: s } : { group: s.slice(dot + 1), resource: s.slice(0, dot) };
}

export function grKey(gr: GroupResource): string {
  return `${gr.resource}.${gr.group}`;
}

/** As upstream prints it: `secrets`, `deployments.apps`, `*.` for all of core. */
export function grText(gr: GroupResource): string {
  if (gr.group === '' && gr.resource === '*') return '*.';
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

function decodeBase64(s: string): Buffer | undefined {
  // Go's StdEncoding: padded standard alphabet, nothing else.
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s)) return undefined;
  return Buffer.from(s, 'base64');
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
