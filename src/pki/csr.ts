// Certificate signing requests (PKCS#10): read one whatever its key type (RSA, ECDSA,
// Ed25519), write one for a key, and issue a certificate for one with the cluster CA.
// node-forge only understands RSA keys, so the ASN.1 is walked with forge.asn1 and every
// signature is made and checked by node:crypto.
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import forge from 'node-forge';
import type { KeyPair } from './index.js';

const { asn1 } = forge;
type Node = forge.asn1.Asn1;
// What @types/node-forge leaves out: fromDer's options and the to-be-signed builders.
const fromDer = asn1.fromDer as unknown as (bytes: forge.util.ByteStringBuffer, options: { strict?: boolean; decodeBitStrings: boolean }) => Node;
const pkiInternals = forge.pki as unknown as {
  getCertificationRequestInfo(csr: forge.pki.CertificateSigningRequest): Node;
  getTBSCertificate(cert: forge.pki.Certificate): Node;
};

const OID = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  extensionRequest: '1.2.840.113549.1.9.14',
  subjectAltName: '2.5.29.17',
  rsaEncryption: '1.2.840.113549.1.1.1',
  sha256WithRSA: '1.2.840.113549.1.1.11',
  ecdsaWithSHA256: '1.2.840.10045.4.3.2',
  ed25519: '1.3.101.112',
};

const hashOfSignature: Record<string, string | null> = {
  '1.2.840.113549.1.1.5': 'sha1', [OID.sha256WithRSA]: 'sha256', '1.2.840.113549.1.1.12': 'sha384', '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.3.2': 'sha256', '1.2.840.10045.4.3.3': 'sha384', '1.2.840.10045.4.3.4': 'sha512', [OID.ed25519]: null,
};

export interface ParsedCSR {
  commonName: string;
  organizations: string[];
  dnsNames: string[];
  ipAddresses: string[];
  emailAddresses: string[];
  uris: string[];
  /** The SubjectPublicKeyInfo, DER. */
  publicKeyDer: Buffer;
  publicKey: KeyObject;
}

export class CSRError extends Error {}

const bytes = (s: string): Buffer => Buffer.from(s, 'binary');
const der = (n: Node): Buffer => bytes(asn1.toDer(n).getBytes());
const children = (n: Node): Node[] => (Array.isArray(n.value) ? n.value : []);

/** The one PEM block of `type` in `pem`, DER; throws when there is none or it does not decode. */
function pemBlock(pem: string, type: string): Buffer {
  const m = new RegExp(`-----BEGIN ${type}-----([A-Za-z0-9+/=\\s]+)-----END ${type}-----`).exec(pem);
  if (!m) throw new CSRError(`PEM block type must be ${type}`);
  return Buffer.from(m[1].replace(/\s+/g, ''), 'base64');
}

/** Reads a PEM `CERTIFICATE REQUEST` and checks its self-signature. */
export function parseCSR(pem: string): ParsedCSR {
  let root: Node;
  try {
    root = fromDer(forge.util.createBuffer(pemBlock(pem, 'CERTIFICATE REQUEST').toString('binary')), { strict: true, decodeBitStrings: false });
  } catch (e) {
    if (e instanceof CSRError) throw e;
    throw new CSRError(`unable to parse bytes as a CSR: ${(e as Error).message}`);
  }
  const [info, algorithm, signature] = children(root);
  const [, subject, spki, attributes] = info ? children(info) : [];
  if (!info || !algorithm || !signature || !subject || !spki) throw new CSRError('unable to parse bytes as a CSR: not a PKCS#10 structure');
  const publicKeyDer = der(spki);
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({ key: publicKeyDer, format: 'der', type: 'spki' });
  } catch (e) {
    throw new CSRError(`unable to parse the CSR's public key: ${(e as Error).message}`);
  }
  const sigOid = asn1.derToOid(children(algorithm)[0]?.value as string);
  const hash = hashOfSignature[sigOid];
  if (hash === undefined) throw new CSRError(`unsupported CSR signature algorithm ${sigOid}`);
  const sig = bytes(signature.value as string).subarray(1); // after the unused-bits byte
  if (!verify(hash, der(info), publicKey, sig)) throw new CSRError('the CSR signature does not verify with its public key');
  const names = { commonName: '', organizations: [] as string[] };
  for (const rdn of children(subject)) {
    for (const atv of children(rdn)) {
      const [oid, value] = children(atv);
      const o = asn1.derToOid(oid.value as string);
      const v = forge.util.decodeUtf8(value.value as string);
      if (o === OID.commonName) names.commonName = v;
      if (o === OID.organization) names.organizations.push(v);
    }
  }
  return { ...names, ...subjectAltNames(attributes), publicKeyDer, publicKey };
}

function subjectAltNames(attributes: Node | undefined): Pick<ParsedCSR, 'dnsNames' | 'ipAddresses' | 'emailAddresses' | 'uris'> {
  const out = { dnsNames: [] as string[], ipAddresses: [] as string[], emailAddresses: [] as string[], uris: [] as string[] };
  for (const attr of attributes ? children(attributes) : []) {
    const [oid, set] = children(attr);
    if (!oid || asn1.derToOid(oid.value as string) !== OID.extensionRequest) continue;
    for (const ext of children(children(set)[0] ?? ({} as Node))) {
      const parts = children(ext);
      if (asn1.derToOid(parts[0].value as string) !== OID.subjectAltName) continue;
      const value = parts[parts.length - 1].value as string;
      for (const name of children(asn1.fromDer(forge.util.createBuffer(value)))) {
        const v = name.value as string;
        if (name.type === 2) out.dnsNames.push(v);
        if (name.type === 1) out.emailAddresses.push(v);
        if (name.type === 6) out.uris.push(v);
        if (name.type === 7) out.ipAddresses.push(ipText(bytes(v)));
      }
    }
  }
  return out;
}

function ipText(b: Buffer): string {
  if (b.length === 4) return [...b].join('.');
  const groups: string[] = [];
  for (let i = 0; i < b.length; i += 2) groups.push(b.readUInt16BE(i).toString(16));
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}

/** Signature algorithm identifier and signer for a private key of any supported type. */
function signerFor(key: KeyObject): { algorithm: Node; sign(data: Buffer): Buffer } {
  const oid = (o: string, params = false) => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(o).getBytes()),
    ...(params ? [asn1.create(asn1.Class.UNIVERSAL, asn1.Type.NULL, false, '')] : []),
  ]);
  switch (key.asymmetricKeyType) {
    case 'rsa': return { algorithm: oid(OID.sha256WithRSA, true), sign: (d) => sign('sha256', d, key) };
    case 'ec': return { algorithm: oid(OID.ecdsaWithSHA256), sign: (d) => sign('sha256', d, key) };
    case 'ed25519': return { algorithm: oid(OID.ed25519), sign: (d) => sign(null, d, key) };
  }
  throw new CSRError(`unsupported key type ${key.asymmetricKeyType}`);
}

const bitString = (b: Buffer): Node => asn1.create(asn1.Class.UNIVERSAL, asn1.Type.BITSTRING, false, `\0${b.toString('binary')}`);
const spkiNode = (spkiDer: Buffer): Node => fromDer(forge.util.createBuffer(spkiDer.toString('binary')), { decodeBitStrings: false });

/** [info, algorithm, signature] → DER of the signed structure, signed by `key`. */
function signed(info: Node, key: KeyObject): Buffer {
  const s = signerFor(key);
  return der(asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [info, s.algorithm, bitString(s.sign(der(info)))]));
}

const pem = (type: string, d: Buffer): string => `-----BEGIN ${type}-----\n${d.toString('base64').replace(/.{1,64}/g, '$&\n')}-----END ${type}-----\n`;

export interface CSRSubject {
  commonName: string;
  organizations?: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
}

// A stand-in public key for forge's builders, which only take RSA keys; it is swapped for the
// real key's SubjectPublicKeyInfo before anything is signed.
let placeholder: forge.pki.rsa.PublicKey | undefined;
function placeholderKey(): forge.pki.rsa.PublicKey {
  placeholder ??= forge.pki.setRsaPublicKey(new forge.jsbn.BigInteger('00c0ffee'.repeat(32), 16), new forge.jsbn.BigInteger('65537'));
  return placeholder;
}

function altNames(dnsNames: string[] = [], ipAddresses: string[] = []): Array<{ type: number; value?: string; ip?: string }> {
  return [...dnsNames.map((value) => ({ type: 2, value })), ...ipAddresses.map((ip) => ({ type: 7, ip }))];
}

/** A PEM CSR for `keyPem` (RSA, ECDSA or Ed25519) with this subject and SANs. */
export function createCSR(keyPem: string, subject: CSRSubject): string {
  const key = createPrivateKey(keyPem);
  const csr = forge.pki.createCertificationRequest();
  csr.publicKey = placeholderKey();
  csr.setSubject([
    ...(subject.organizations ?? []).map((value) => ({ name: 'organizationName', value })),
    { name: 'commonName', value: subject.commonName },
  ]);
  const sans = altNames(subject.dnsNames, subject.ipAddresses);
  if (sans.length) csr.setAttributes([{ name: 'extensionRequest', extensions: [{ name: 'subjectAltName', altNames: sans }] }]);
  const info = pkiInternals.getCertificationRequestInfo(csr);
  (info.value as Node[])[2] = spkiNode(createPublicKey(key).export({ format: 'der', type: 'spki' }));
  return pem('CERTIFICATE REQUEST', signed(info, key));
}

export interface IssueOptions {
  /** Key usages as certificates.k8s.io names them ("digital signature", "client auth", …). */
  usages: string[];
  notBefore: Date;
  notAfter: Date;
}

/** A certificate for the CSR's subject, SANs and public key, signed by `ca`; PEM. */
export function signCSR(ca: KeyPair, csr: ParsedCSR, opts: IssueOptions): string {
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  const cert = forge.pki.createCertificate();
  cert.publicKey = placeholderKey();
  cert.serialNumber = forge.util.bytesToHex(forge.random.getBytesSync(16)).replace(/^[89a-f]/, '7');
  cert.validity.notBefore = opts.notBefore;
  cert.validity.notAfter = opts.notAfter;
  cert.setSubject([
    ...csr.organizations.map((value) => ({ name: 'organizationName', value })),
    ...(csr.commonName ? [{ name: 'commonName', value: csr.commonName }] : []),
  ]);
  cert.setIssuer(caCert.subject.attributes);
  const has = (u: string) => opts.usages.includes(u);
  const sans = [...altNames(csr.dnsNames, csr.ipAddresses.filter((ip) => isIP(ip))), ...csr.emailAddresses.map((value) => ({ type: 1, value })), ...csr.uris.map((value) => ({ type: 6, value }))];
  // An extension with no bit set is malformed (OpenSSL refuses the certificate): only those asked for.
  const keyUsage = {
    digitalSignature: has('digital signature') || has('signing'), nonRepudiation: has('content commitment'),
    keyEncipherment: has('key encipherment'), dataEncipherment: has('data encipherment'), keyAgreement: has('key agreement'),
  };
  const extKeyUsage = { serverAuth: has('server auth'), clientAuth: has('client auth'), codeSigning: has('code signing'), emailProtection: has('email protection') };
  const any = (o: Record<string, boolean>) => Object.values(o).some(Boolean);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    ...(any(keyUsage) ? [{ name: 'keyUsage', critical: true, ...keyUsage }] : []),
    ...(any(extKeyUsage) ? [{ name: 'extKeyUsage', ...extKeyUsage }] : []),
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
    ...(sans.length ? [{ name: 'subjectAltName', altNames: sans }] : []),
  ]);
  // forge fills the signature algorithm fields when it signs; sign once with the CA (RSA),
  // then put the real public key in and sign the result again.
  const caKey = forge.pki.privateKeyFromPem(ca.keyPem);
  cert.sign(caKey, forge.md.sha256.create());
  const tbs = pkiInternals.getTBSCertificate(cert);
  (tbs.value as Node[])[6] = spkiNode(csr.publicKeyDer);
  return pem('CERTIFICATE', signed(tbs, createPrivateKey(ca.keyPem)));
}

/** The PEM CERTIFICATE blocks in `pem` (a chain), DER each; throws when there is none. */
export function certificateBlocks(text: string): Buffer[] {
  const out: Buffer[] = [];
  const re = /-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\s]+)-----END \1-----/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[1] !== 'CERTIFICATE') throw new CSRError(`PEM block type must be CERTIFICATE, not ${m[1]}`);
    out.push(Buffer.from(m[2].replace(/\s+/g, ''), 'base64'));
  }
  if (!out.length) throw new CSRError('must contain at least one CERTIFICATE PEM block');
  return out;
}
