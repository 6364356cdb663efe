// imagePullPolicy as the kubelet applies it: ImageStatus first (a local-only image such as
// localhost/capstan/busybox:1 cannot be pulled here, and must not be when present),
// PullImage for Always or when missing, Never fails when missing. Failed pulls back off
// per pod and image (ErrImagePull, then ImagePullBackOff).
import type { CRIRuntime } from '../../cri/index.js';
import type { EventRecorder } from '../client/index.js';
import { Backoff } from './backoff.js';
import type { Pod } from '../api/kinds.js';
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

  constructor(private runtime: CRIRuntime, private recorder: EventRecorder | undefined, private now: () => number) {
    this.backoff = new Backoff(now, 10_000, 300_000);
  }

  async ensure(pod: Pod, container: Container): Promise<ImageResult> {
    const image: string = container.image ?? '';
    if (!image) return { ok: false, reason: 'InvalidImageName', message: 'Failed to apply default image tag "": couldn\'t parse image name "": invalid reference format' };
    const policy = pullPolicy(container);
    const key = `${pod.metadata.uid}/${image}`;
    if (policy !== 'Always') {
      const present = (await this.runtime.imageStatus(image)).image;
      if (present) {
        this.recorder?.event(pod, 'Normal', 'Pulled', `Container image "${image}" already present on machine`);
        return { ok: true, imageRef: present.id };
      }
      if (policy === 'Never') {
        const message = `Container image "${image}" is not present with pull policy of Never`;
        this.recorder?.event(pod, 'Warning', 'ErrImageNeverPull', message);
        return { ok: false, reason: 'ErrImageNeverPull', message };
      }
    }
    if (this.backoff.inBackOffSince(key, this.lastFailure.get(key) ?? 0)) {
      const message = `Back-off pulling image "${image}"`;
      this.recorder?.event(pod, 'Normal', 'BackOff', message);
      return { ok: false, reason: 'ImagePullBackOff', message, retryAt: this.backoff.readyAt(key, this.lastFailure.get(key) ?? 0) };
    }
    this.recorder?.event(pod, 'Normal', 'Pulling', `Pulling image "${image}"`);
    const started = Date.now();
    try {
      const ref = await this.runtime.pullImage(image);
      const took = `${((Date.now() - started) / 1000).toFixed(3)}s`;
      const size = (await this.runtime.imageStatus(image)).image?.size ?? '0';
      this.recorder?.event(pod, 'Normal', 'Pulled', `Successfully pulled image "${image}" in ${took} (${took} including waiting). Image size: ${size} bytes.`);
      this.lastFailure.delete(key);
      return { ok: true, imageRef: ref };
    } catch (e) {
      const err = (e as { details?: string }).details ?? (e as Error).message;
      this.backoff.next(key);
      this.lastFailure.set(key, this.now());
      this.recorder?.event(pod, 'Warning', 'Failed', `Failed to pull image "${image}": ${err}`);
      this.recorder?.event(pod, 'Warning', 'Failed', 'Error: ErrImagePull');
      return { ok: false, reason: 'ErrImagePull', message: err, retryAt: this.backoff.readyAt(key, this.now()) };
    }
  }

  forgetPod(uid: string): void {
    this.backoff.forgetPrefix(`${uid}/`);
    for (const k of this.lastFailure.keys()) if (k.startsWith(`${uid}/`)) this.lastFailure.delete(k);
  }
}
