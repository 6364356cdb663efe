// The cluster's certificates: a CA, serving certificates with IP SANs, and client
// certificates whose subject carries the user (CN) and groups (O). Keys come from Node's
// native generator; node-forge only assembles and signs the X.509 structures.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import forge from 'node-forge';

export interface KeyPair {
  certPem: string;
  keyPem: string;
}

export interface CertRequest {
  commonName: string;
  organizations?: string[];
  ipAddresses?: string[];
  dnsNames?: string[];
  usage: 'server' | 'client' | 'both';
  days?: number;
  /** An RSA private key (PEM) to certify instead of a new one: many certificates, one key generation. */
  keyPem?: string;
}

function newKey(existing?: string): { pem: string; key: forge.pki.rsa.PrivateKey; pub: forge.pki.rsa.PublicKey } {
  const privateKey = existing ?? generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs1', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } }).privateKey;
  const key = forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey;
  const pub = forge.pki.setRsaPublicKey(key.n, key.e);
  return { pem: privateKey, key, pub };
}

function serial(): string {
  const b = randomBytes(16);
  b[0] &= 0x7f; // keep it positive
  return b.toString('hex');
}

export function createCA(commonName = 'capstan-ca', days = 3650): KeyPair {
  const { pem, key, pub } = newKey();
  const cert = forge.pki.createCertificate();
  cert.publicKey = pub;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + days * 86_400_000);
  const attrs = [{ name: 'commonName', value: commonName }];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(key, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: pem };
}

export function issueCert(ca: KeyPair, req: CertRequest): KeyPair {
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  const caKey = forge.pki.privateKeyFromPem(ca.keyPem);
  const { pem, pub } = newKey(req.keyPem);
  const cert = forge.pki.createCertificate();
  cert.publicKey = pub;
  cert.serialNumber = serial();
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + (req.days ?? 365) * 86_400_000);
  cert.setSubject([
    ...(req.organizations ?? []).map((o) => ({ name: 'organizationName', value: o })),
    { name: 'commonName', value: req.commonName },
  ]);
  cert.setIssuer(caCert.subject.attributes);
  const altNames = [
    ...(req.dnsNames ?? []).map((value) => ({ type: 2, value })),
    ...(req.ipAddresses ?? []).map((ip) => ({ type: 7, ip })),
  ];
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: req.usage !== 'client', clientAuth: req.usage !== 'server' },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
    ...(altNames.length ? [{ name: 'subjectAltName', altNames }] : []),
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: pem };
}

function load(dir: string, name: string): KeyPair | null {
  const crt = join(dir, `${name}.crt`), key = join(dir, `${name}.key`);
  if (!existsSync(crt) || !existsSync(key)) return null;
  // A key copied in (or left by an older version) with a looser mode is tightened.
  chmodSync(key, 0o600);
  return { certPem: readFileSync(crt, 'utf8'), keyPem: readFileSync(key, 'utf8') };
}

function save(dir: string, name: string, kp: KeyPair): KeyPair {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, `${name}.key`), kp.keyPem, { mode: 0o600 });
  chmodSync(join(dir, `${name}.key`), 0o600);
  writeFileSync(join(dir, `${name}.crt`), kp.certPem);
  return kp;
}

/** Loads `<dir>/<name>.{crt,key}` or creates them with `make` on first use. */
export function loadOrCreate(dir: string, name: string, make: () => KeyPair): KeyPair {
  return load(dir, name) ?? save(dir, name, make());
}

/** The IP SANs a serving certificate has, to decide whether it must be reissued. */
export function certificateIPs(certPem: string): string[] {
  const cert = forge.pki.certificateFromPem(certPem);
  const ext = cert.getExtension('subjectAltName') as { altNames?: { type: number; ip?: string }[] } | undefined;
  return (ext?.altNames ?? []).filter((a) => a.type === 7 && a.ip).map((a) => a.ip as string);
}

/** Serving certificate for the given addresses, reissued when an address is missing from it. */
export function ensureServingCert(dir: string, name: string, ca: KeyPair, ips: string[], dnsNames: string[]): KeyPair {
  const existing = load(dir, name);
  if (existing) {
    const have = new Set(certificateIPs(existing.certPem));
    if (ips.every((ip) => have.has(ip))) return existing;
  }
  return save(dir, name, issueCert(ca, { commonName: name, ipAddresses: ips, dnsNames, usage: 'server' }));
}
