// Image garbage collection, as upstream's image_gc_manager: every period the image
// filesystem (CRI ImageFsInfo's mountpoint, measured with statfs) is checked; at or above
// the high threshold (percent used) images are removed until usage would be at the low
// threshold. Only images no container uses (running or exited), not pinned and not the
// sandbox image, detected at least `minAge` ago, least recently used first (then oldest
// detected). Last use is what this process saw, as upstream's: a restart starts the clocks over.
import { statfsSync } from 'node:fs';
import type { CRIRuntime, Image } from '../../cri/index.js';
import type { Clock, EventRecorder } from '../client/index.js';
import type { Logger } from '../log/index.js';

export interface ImageGCPolicy {
  /** Percent of the image filesystem used at which GC runs (upstream --image-gc-high-threshold, 85). */
  highThresholdPercent: number;
  /** Percent GC frees down to (--image-gc-low-threshold, 80). */
  lowThresholdPercent: number;
  /** Images younger than this (since first seen) stay (--minimum-image-ttl-duration, 2 min). */
  minAgeMs: number;
}

export const DEFAULT_IMAGE_GC_POLICY: ImageGCPolicy = { highThresholdPercent: 85, lowThresholdPercent: 80, minAgeMs: 120_000 };

export interface FsStats { capacityBytes: number; availableBytes: number }

export interface ImageGCDeps {
  runtime: CRIRuntime;
  clock: Clock;
  log: Logger;
  recorder?: EventRecorder;
  /** The Node, as events name it. */
  nodeName: string;
  /** Never removed (containerd 1.6 does not report the sandbox image as pinned). */
  sandboxImage: string;
  /** Capacity and free space of the filesystem holding `mountpoint`; default statfs. */
  fsStats?: (mountpoint: string) => FsStats;
}

/** upstream's validation of the two thresholds; an error message or undefined. */
export function validateImageGCPolicy(p: ImageGCPolicy): string | undefined {
  if (p.highThresholdPercent < 0 || p.highThresholdPercent > 100) return `invalid HighThresholdPercent ${p.highThresholdPercent}, must be in range [0-100]`;
  if (p.lowThresholdPercent < 0 || p.lowThresholdPercent > 100) return `invalid LowThresholdPercent ${p.lowThresholdPercent}, must be in range [0-100]`;
  if (p.lowThresholdPercent > p.highThresholdPercent) return `LowThresholdPercent ${p.lowThresholdPercent} can not be higher than HighThresholdPercent ${p.highThresholdPercent}`;
  return undefined;
}

const statfs = (mountpoint: string): FsStats => {
  const s = statfsSync(mountpoint);
  return { capacityBytes: s.blocks * s.bsize, availableBytes: s.bavail * s.bsize };
};

interface ImageRecord { firstDetected: number; lastUsed: number; size: number }

export class ImageGCManager {
  private records = new Map<string, ImageRecord>();

  constructor(private policy: ImageGCPolicy, private d: ImageGCDeps) {
    const invalid = validateImageGCPolicy(policy);
    if (invalid) throw new Error(invalid);
  }

  /** Starts the clocks of the images present now (upstream detects at start, then each period). */
  async start(): Promise<void> {
    await this.detect(this.d.clock.now()).catch((e: unknown) => this.d.log.warn('image detection failed', { error: (e as Error).message }));
  }

  /** Refreshes first-detected and last-used times; returns the images the runtime has. */
  private async detect(now: number): Promise<Image[]> {
    const images = await this.d.runtime.listImages();
    const containers = await this.d.runtime.listContainers();
    const inUse = new Set<string>();
    for (const c of containers) {
      if (c.image_ref) inUse.add(c.image_ref);
      if (c.image?.image) inUse.add(c.image.image);
    }
    const present = new Set<string>();
    for (const img of images) {
      present.add(img.id);
      const r = this.records.get(img.id) ?? { firstDetected: now, lastUsed: 0, size: Number(img.size) };
      r.size = Number(img.size);
      if (this.used(img, inUse)) r.lastUsed = now;
      this.records.set(img.id, r);
    }
    for (const id of this.records.keys()) if (!present.has(id)) this.records.delete(id);
    return images;
  }

  private used(img: Image, inUse: Set<string>): boolean {
    return inUse.has(img.id) || img.repo_tags.some((t) => inUse.has(t)) || img.repo_digests.some((t) => inUse.has(t));
  }

  /** One GC pass (upstream's GarbageCollect). Failures are reported as events and thrown. */
  async garbageCollect(): Promise<{ freedBytes: number; removed: string[] }> {
    const fs = await this.d.runtime.imageFsInfo();
    const mountpoint = fs.image_filesystems[0]?.fs_id?.mountpoint;
    if (!mountpoint) throw new Error('failed to get imageFs info: no image filesystem reported by the runtime');
    const { capacityBytes, availableBytes } = (this.d.fsStats ?? statfs)(mountpoint);
    if (capacityBytes <= 0) throw new Error(`invalid capacity ${capacityBytes} on image filesystem`);
    const usagePercent = 100 - Math.floor((availableBytes * 100) / capacityBytes);
    const now = this.d.clock.now();
    const images = await this.detect(now);
    if (usagePercent < this.policy.highThresholdPercent) return { freedBytes: 0, removed: [] };
    const amountToFree = Math.floor((capacityBytes * (100 - this.policy.lowThresholdPercent)) / 100) - availableBytes;
    this.d.log.info('disk usage on image filesystem is over the high threshold, trying to free bytes down to the low threshold',
      { usage: usagePercent, highThreshold: this.policy.highThresholdPercent, amountToFree, lowThreshold: this.policy.lowThresholdPercent });
    const result = await this.freeSpace(amountToFree, now, images);
    if (result.freedBytes < amountToFree) {
      const message = `Failed to garbage collect required amount of images. Attempted to free ${amountToFree} bytes, but only found ${result.freedBytes} bytes eligible to free.`;
      this.nodeEvent('FreeDiskSpaceFailed', message);
      throw new Error(message);
    }
    return result;
  }

  private async freeSpace(bytesToFree: number, now: number, images: Image[]): Promise<{ freedBytes: number; removed: string[] }> {
    const inUse = new Set((await this.d.runtime.listContainers()).flatMap((c) => [c.image_ref, c.image?.image ?? '']).filter(Boolean));
    const candidates = images
      .filter((img) => !img.pinned && !this.used(img, inUse) && !img.repo_tags.includes(this.d.sandboxImage) && img.id !== this.d.sandboxImage)
      .map((img) => ({ img, r: this.records.get(img.id)! }))
      .filter(({ r }) => r && now - r.firstDetected >= this.policy.minAgeMs)
      .sort((a, b) => a.r.lastUsed - b.r.lastUsed || a.r.firstDetected - b.r.firstDetected);
    let freedBytes = 0;
    const removed: string[] = [];
    const errors: string[] = [];
    for (const { img, r } of candidates) {
      if (freedBytes >= bytesToFree) break;
      this.d.log.info('removing image to free bytes', { imageID: img.id, size: r.size });
      try {
        await this.d.runtime.removeImage(img.id);
      } catch (e) {
        errors.push((e as Error).message);
        continue;
      }
      this.records.delete(img.id);
      removed.push(img.id);
      freedBytes += r.size;
    }
    if (errors.length) this.d.log.warn('image removal failed', { errors });
    return { freedBytes, removed };
  }

  private nodeEvent(reason: string, message: string): void {
    this.d.recorder?.event({ apiVersion: 'v1', kind: 'Node', metadata: { name: this.d.nodeName, uid: this.d.nodeName } }, 'Warning', reason, message);
  }

  private failedBefore = false;

  /** One periodic pass. As upstream, a failure is only logged the first time (stats may not
   *  be ready yet) and becomes an ImageGCFailed event when it repeats. */
  async run(): Promise<void> {
    try {
      await this.garbageCollect();
      this.failedBefore = false;
    } catch (e) {
      const message = (e as Error).message;
      this.d.log.warn('image garbage collection failed', { error: message });
      if (this.failedBefore) this.nodeEvent('ImageGCFailed', message);
      this.failedBefore = true;
    }
  }
}
