// imagePullPolicy as the kubelet applies it: ImageStatus first (a local-only image such as
// localhost/capstan/busybox:1 cannot be pulled here, and must not be when present),
// PullImage for Always or when missing, Never fails when missing. Failed pulls back off
// per pod and image (ErrImagePull, then ImagePullBackOff). Credentials come from the pod's
// imagePullSecrets (the ServiceAccount's are copied into the pod at admission, as upstream).
import { isCRIError, type CRIRuntime, type Image } from '../../cri/index.js';
import type { EventRecorder } from '../client/index.js';
import { Backoff } from './backoff.js';
import type { Pod, Secret } from '../api/kinds.js';
import { credentialsFor } from './credentials.js';
import type { Container } from 'kubernetes-types/core/v1.js';

export type ImageResult =
  | { ok: true; imageRef: string }
  | { ok: false; reason: 'ErrImagePull' | 'ImagePullBackOff' | 'ErrImageNeverPull' | 'InvalidImageName'; message: string; retryAt?: number };

/** The policy in effect: the spec's, else Always for :latest or untagged images. */
export function pullPolicy(container: Container): 'Always' | 'IfNotPresent' | 'Never' {
  if (container.imagePullPolicy) return container.imagePullPolicy as 'Always' | 'IfNotPresent' | 'Never';
  const image: string = container.image ?? '';
  if (image.includes('@')) return 'IfNotPresent';
  const last = image.split('/').pop() ?? '';
  const tag = last.includes(':') ? last.split(':').pop() : '';
  return !tag || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

export class ImageManager {
  readonly backoff: Backoff;

  private lastFailure = new Map<string, number>();
  /** "ErrImagePull: <message>" of the last failed pull, shown during the back-off (upstream's prevPullErrMsg). */
  private lastError = new Map<string, string>();

  constructor(
    private runtime: CRIRuntime, private recorder: EventRecorder | undefined, private now: () => number,
    private secret: (namespace: string, name: string) => Promise<Secret | undefined> = async () => undefined,
  ) {
    this.backoff = new Backoff(now, 10_000, 300_000);
  }

  /** The pod's pull secrets that exist; a missing one is reported, as upstream, and skipped. */
  private async pullSecrets(pod: Pod): Promise<Secret[]> {
    const found: Secret[] = [];
    const missing: string[] = [];
    for (const ref of pod.spec?.imagePullSecrets ?? []) {
      if (!ref.name) continue;
      const s = await this.secret(pod.metadata.namespace ?? 'default', ref.name).catch(() => undefined);
      if (s) found.push(s);
      else missing.push(ref.name);
    }
    if (missing.length) {
      this.recorder?.event(pod, 'Warning', 'FailedToRetrieveImagePullSecret',
        `Unable to retrieve some image pull secrets (${missing.join(', ')}); attempting to pull the image may not succeed.`);
    }
    return found;
  }

  /** PullImage with each matching credential in turn (none matching: anonymously); errors as Go's gRPC client prints them. */
  private async pull(pod: Pod, image: string): Promise<string> {
    const creds = credentialsFor(image, await this.pullSecrets(pod));
    if (!creds.length) return this.runtime.pullImage(image).catch((e: unknown) => { throw new Error(grpcError(e)); });
    const errors: string[] = [];
    for (const { key: _key, ...auth } of creds) {
      try {
        return await this.runtime.pullImage(image, auth);
      } catch (e) {
        errors.push(grpcError(e));
      }
    }
    // utilerrors.NewAggregate: one error prints as itself, several as "[a, b]".
    throw new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
  }

  /** ImageStatus of these containers' images, asked now (beside the sandbox's creation) for
   *  their ensure() to use, instead of after the sandbox is up. */
  lookAhead(pod: Pod, containers: Container[]): void {
    for (const c of containers) {
      if (!c.image || pullPolicy(c) === 'Always') continue;
      const key = `${pod.metadata.uid}/${c.image}`;
      if (!this.ahead.has(key)) this.ahead.set(key, this.runtime.imageStatus(c.image).then((r) => r.image, () => undefined));
    }
  }

  private ahead = new Map<string, Promise<Image | null | undefined>>();

  async ensure(pod: Pod, container: Container): Promise<ImageResult> {
    const image: string = container.image ?? '';
    if (!image) return { ok: false, reason: 'InvalidImageName', message: 'Failed to apply default image tag "": couldn\'t parse image name "": invalid reference format' };
    const policy = pullPolicy(container);
    const key = `${pod.metadata.uid}/${image}`;
    if (policy !== 'Always') {
      const early = this.ahead.get(key);
      this.ahead.delete(key);
      // A look-ahead that found nothing (or failed) is asked again: the image may have come since.
      const present = (early && await early) || (await this.runtime.imageStatus(image)).image;
      if (present) {
        this.recorder?.event(pod, 'Normal', 'Pulled', `Container image "${image}" already present on machine`);
        return { ok: true, imageRef: present.id };
      }
      if (policy === 'Never') {
        const message = `Container image "${image}" is not present with pull policy of Never`;
        this.recorder?.event(pod, 'Warning', 'ErrImageNeverPull', message);
        this.recorder?.event(pod, 'Warning', 'Failed', 'Error: ErrImageNeverPull');
        return { ok: false, reason: 'ErrImageNeverPull', message };
      }
    }
    if (this.backoff.inBackOffSince(key, this.lastFailure.get(key) ?? 0)) {
      const message = `Back-off pulling image "${image}"`;
      this.recorder?.event(pod, 'Normal', 'BackOff', message);
      this.recorder?.event(pod, 'Warning', 'Failed', 'Error: ImagePullBackOff');
      const previous = this.lastError.get(key);
      return {
        ok: false, reason: 'ImagePullBackOff', message: previous ? `${message}: ${previous}` : message,
        retryAt: this.backoff.readyAt(key, this.lastFailure.get(key) ?? 0),
      };
    }
    this.lastError.delete(key);
    this.recorder?.event(pod, 'Normal', 'Pulling', `Pulling image "${image}"`);
    const started = Date.now();
    try {
      const ref = await this.pull(pod, image);
      const took = `${((Date.now() - started) / 1000).toFixed(3)}s`;
      const size = (await this.runtime.imageStatus(image)).image?.size ?? '0';
      this.recorder?.event(pod, 'Normal', 'Pulled', `Successfully pulled image "${image}" in ${took} (${took} including waiting). Image size: ${size} bytes.`);
      this.lastFailure.delete(key);
      return { ok: true, imageRef: ref };
    } catch (e) {
      const err = (e as Error).message;
      this.backoff.next(key);
      this.lastFailure.set(key, this.now());
      this.lastError.set(key, `ErrImagePull: ${err}`);
      this.recorder?.event(pod, 'Warning', 'Failed', `Failed to pull image "${image}": ${err}`);
      this.recorder?.event(pod, 'Warning', 'Failed', 'Error: ErrImagePull');
      return { ok: false, reason: 'ErrImagePull', message: err, retryAt: this.backoff.readyAt(key, this.now()) };
    }
  }

  forgetPod(uid: string): void {
    this.backoff.forgetPrefix(`${uid}/`);
    for (const k of this.ahead.keys()) if (k.startsWith(`${uid}/`)) this.ahead.delete(k);
    for (const m of [this.lastFailure, this.lastError]) for (const k of m.keys()) if (k.startsWith(`${uid}/`)) m.delete(k);
  }
}

/** A CRI error as Go's gRPC status prints it: `rpc error: code = Unknown desc = …`. */
export function grpcError(e: unknown): string {
  if (!isCRIError(e)) return (e as Error).message;
  const code = e.codeName === 'OK' ? 'OK' : e.codeName.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _u, c: string) => c.toUpperCase());
  return `rpc error: code = ${code} desc = ${e.details}`;
}
