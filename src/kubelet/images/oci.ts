// An OCI image layout archive (oci-layout, index.json, blobs/sha256/*) holding one
// single-layer image for this machine's platform, as `ctr images import --index-name`
// takes it. The index carries no org.opencontainers.image.ref.name annotation on purpose:
// ctr would also create an image named import-<date>:<ref.name>, and two of capstan's
// images sharing a tag would then overwrite each other's extra name — which leaves CRI's
// image cache pointing at a name that now means another image ("failed to get image").
import { createHash } from 'node:crypto';
import { tar, type TarEntry } from './tar.js';

export interface ImageConfigSpec {
  Entrypoint?: string[];
  Cmd?: string[];
  Env?: string[];
  User?: string;
  WorkingDir?: string;
  StopSignal?: string;
}

export interface OCIArchive {
  /** The image layout as one tar archive. */
  archive: Buffer;
  /** Digest of the image config: what CRI reports as the image id. */
  configDigest: string;
  manifestDigest: string;
}

const sha256 = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;
const goArch = (): string => ({ x64: 'amd64', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' } as Record<string, string>)[process.arch] ?? process.arch;

/** Builds the archive for an image whose single (uncompressed) layer is `layer`. */
export function ociArchive(layer: Buffer, spec: ImageConfigSpec): OCIArchive {
  const layerDigest = sha256(layer);
  const platform = { architecture: goArch(), os: 'linux' };
  const config = Buffer.from(JSON.stringify({
    ...platform,
    config: spec,
    rootfs: { type: 'layers', diff_ids: [layerDigest] },
    history: [{ created_by: 'capstan image builder' }],
  }));
  const configDigest = sha256(config);
  const manifest = Buffer.from(JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: configDigest, size: config.length },
    layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: layerDigest, size: layer.length }],
  }));
  const manifestDigest = sha256(manifest);
  const index = Buffer.from(JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.index.v1+json',
    manifests: [{
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      digest: manifestDigest,
      size: manifest.length,
      platform,
    }],
  }));
  const blob = (digest: string, data: Buffer): TarEntry => ({ type: 'file', path: `blobs/sha256/${digest.slice(7)}`, data });
  const archive = tar([
    { type: 'file', path: 'oci-layout', data: Buffer.from('{"imageLayoutVersion":"1.0.0"}') },
    { type: 'file', path: 'index.json', data: index },
    { type: 'dir', path: 'blobs' },
    { type: 'dir', path: 'blobs/sha256' },
    blob(layerDigest, layer),
    blob(configDigest, config),
    blob(manifestDigest, manifest),
  ]);
  return { archive, configDigest, manifestDigest };
}
