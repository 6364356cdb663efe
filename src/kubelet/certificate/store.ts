// A kubelet's certificate files in --cert-dir, as upstream's file store: each issued pair is
// written as `<name>-<timestamp>.pem` (certificate, then key) and `<name>-current.pem` is a
// symlink switched to it in one rename, so a reader never sees half a pair.
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CertificatePair {
  certPem: string;
  keyPem: string;
  cert: X509Certificate;
}

/** Splits a PEM file holding a certificate (chain) and a private key. */
export function splitPair(text: string): { certPem: string; keyPem: string } {
  const blocks = text.match(/-----BEGIN ([A-Z ]+)-----[\s\S]+?-----END \1-----\n?/g) ?? [];
  const certPem = blocks.filter((b) => b.startsWith('-----BEGIN CERTIFICATE-----')).join('');
  const keyPem = blocks.filter((b) => / PRIVATE KEY-----/.test(b.split('\n')[0])).join('');
  return { certPem, keyPem };
}

export class CertificateStore {
  constructor(readonly dir: string, readonly name: string) {}

  /** The file kubeconfigs and TLS settings point at. */
  get currentPath(): string {
    return join(this.dir, `${this.name}-current.pem`);
  }

  /** The current pair, or null when there is none or it does not read as one. */
  current(): CertificatePair | null {
    if (!existsSync(this.currentPath)) return null;
    const { certPem, keyPem } = splitPair(readFileSync(this.currentPath, 'utf8'));
    if (!certPem || !keyPem) return null;
    try {
      return { certPem, keyPem, cert: new X509Certificate(certPem) };
    } catch {
      return null;
    }
  }

  /** Writes a new pair and makes it current. */
  update(certPem: string, keyPem: string, now: Date): CertificatePair {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
    const file = `${this.name}-${stamp}.pem`;
    writeFileSync(join(this.dir, file), certPem.trimEnd() + '\n' + keyPem, { mode: 0o600 });
    const tmp = join(this.dir, `.${this.name}-current.tmp`);
    rmSync(tmp, { force: true });
    symlinkSync(file, tmp);
    renameSync(tmp, this.currentPath);
    return { certPem, keyPem, cert: new X509Certificate(certPem) };
  }
}
