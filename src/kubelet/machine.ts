// What the node reports about its machine: capacity from systeminformation (cpu, memory),
// the root dir's filesystem from statfs, identity and OS facts, and pressure samples.
import { readFileSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { release } from 'node:os';
import { dirname, resolve } from 'node:path';
import { hostAddress } from '../util/index.js';
import si from 'systeminformation';

export interface MachineInfo {
  cpu: number;
  memoryBytes: number;
  ephemeralStorageBytes: number;
  kernelVersion: string;
  osImage: string;
  machineID: string;
  systemUUID: string;
  bootID: string;
  architecture: string;
}

export interface PressureSample {
  memoryAvailableBytes: number;
  /** For percentage thresholds on memory. */
  memoryCapacityBytes?: number;
  diskAvailableBytes: number;
  diskSizeBytes: number;
}

const readTrim = (p: string) => {
  try {
    return readFileSync(p, 'utf8').trim();
  } catch { // a machine without the file (e.g. no /etc/machine-id) reports it empty, as the kubelet does
    return '';
  }
};

/** The filesystem holding `dir` (or its nearest existing parent), by statfs: systeminformation's
 *  fsSize runs `cat /proc/mounts` synchronously, which stalls every pod's work on a busy machine. */
async function fsFor(dir: string): Promise<{ size: number; available: number }> {
  for (let d = resolve(dir); ; d = dirname(d)) {
    try {
      const s = await statfs(d);
      return { size: s.blocks * s.bsize, available: s.bavail * s.bsize };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || d === dirname(d)) return { size: 0, available: 0 };
    }
  }
}

export async function machineInfo(rootDir: string): Promise<MachineInfo> {
  const [cpu, mem, fs, os] = await Promise.all([si.cpu(), si.mem(), fsFor(rootDir), si.osInfo()]);
  const pretty = /^PRETTY_NAME="?([^"\n]*)"?/m.exec(readTrim('/etc/os-release'))?.[1];
  return {
    cpu: cpu.cores || 1,
    memoryBytes: mem.total,
    ephemeralStorageBytes: fs.size,
    kernelVersion: os.kernel || release(),
    osImage: pretty || `${os.distro} ${os.release}${os.codename ? ` (${os.codename})` : ''}`,
    machineID: readTrim('/etc/machine-id'),
    systemUUID: readTrim('/sys/class/dmi/id/product_uuid'),
    bootID: readTrim('/proc/sys/kernel/random/boot_id'),
    architecture: process.arch === 'x64' ? 'amd64' : process.arch,
  };
}

export async function pressureSample(rootDir: string): Promise<PressureSample> {
  const [mem, fs] = await Promise.all([si.mem(), fsFor(rootDir)]);
  return { memoryAvailableBytes: mem.available, memoryCapacityBytes: mem.total, diskAvailableBytes: fs.available, diskSizeBytes: fs.size };
}

/** The host's address (the default route's interface first, as upstream), else 127.0.0.1. */
export function defaultNodeIP(): string {
  return hostAddress() ?? '127.0.0.1';
}
