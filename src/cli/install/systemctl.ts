// systemctl for the installer. Below a root other than "/" only what works offline runs
// (`systemctl --root DIR enable` links the units); nothing is started.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const UNIT_DIRS = ['/etc/systemd/system', '/run/systemd/system', '/lib/systemd/system', '/usr/lib/systemd/system'];

export class Systemctl {
  constructor(private root: string) {}

  get live(): boolean {
    return this.root === '/';
  }

  private run(args: string[]): string {
    const full = this.live ? args : [`--root=${this.root}`, ...args];
    return execFileSync('systemctl', full, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  }

  daemonReload(): void {
    if (this.live) this.run(['daemon-reload']);
  }

  enable(units: string[]): void {
    if (units.length) this.run(['enable', '--quiet', ...units]);
  }

  disable(units: string[]): void {
    if (units.length) this.run(['disable', '--quiet', ...units]);
  }

  start(units: string[]): void {
    if (this.live && units.length) this.run(['start', ...units]);
  }

  restart(unit: string): void {
    if (this.live) this.run(['restart', unit]);
  }

  stop(units: string[]): void {
    if (this.live && units.length) spawnSync('systemctl', ['stop', ...units], { stdio: 'ignore' });
  }

  isActive(unit: string): boolean {
    return this.live && spawnSync('systemctl', ['is-active', '--quiet', unit]).status === 0;
  }

  /** Whether a unit file of that name is on systemd's unit path for the system (files: also offline). */
  exists(unit: string): boolean {
    return UNIT_DIRS.some((d) => existsSync(join(this.root, d, unit)));
  }
}
