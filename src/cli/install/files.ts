// Writing files for the installer: every path that did not exist is recorded in the
// manifest before it is created, so uninstall removes it and nothing else.
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { recordCreate, type InstallManifest } from './manifest.js';

export class InstallFiles {
  constructor(readonly manifest: InstallManifest) {}

  mkdir(path: string, mode = 0o755): string {
    recordCreate(this.manifest, path);
    mkdirSync(path, { recursive: true, mode });
    return path;
  }

  /** Writes `data` atomically; returns whether the content changed. */
  write(path: string, data: string | Buffer, mode = 0o644): boolean {
    const before = existsSync(path) ? readFileSync(path) : undefined;
    const changed = !before || !before.equals(Buffer.from(data));
    this.mkdir(dirname(path));
    recordCreate(this.manifest, path);
    if (!changed) {
      chmodSync(path, mode);
      return false;
    }
    const tmp = `${path}.capstan-tmp`;
    writeFileSync(tmp, data, { mode });
    chmodSync(tmp, mode);
    renameSync(tmp, path);
    return true;
  }

  /** Notes a path something else creates (a file the PKI code writes, a directory systemctl links into). */
  expect(path: string): string {
    recordCreate(this.manifest, path);
    return path;
  }

  /**
   * Replaces the directory `dest` with a copy of `src`: copied beside it, then swapped in by
   * renames, so the running units keep their files until they are restarted.
   */
  replaceTree(src: string, dest: string): void {
    this.mkdir(dirname(dest));
    recordCreate(this.manifest, dest);
    const next = `${dest}.new`, old = `${dest}.old`;
    rmSync(next, { recursive: true, force: true });
    rmSync(old, { recursive: true, force: true });
    cpSync(src, next, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
    if (existsSync(dest)) renameSync(dest, old);
    renameSync(next, dest);
    rmSync(old, { recursive: true, force: true });
  }
}

/** The unit files of a release (its systemd/ directory). */
export const releaseUnit = (release: string, unit: string): string => readFileSync(join(release, 'systemd', unit), 'utf8');
