// Control-plane components as child processes of a benchmark: started, awaited until they say
// they are ready, and stopped by the benchmark's teardowns.
import { spawn, type ChildProcess } from 'node:child_process';
import { capstanBin } from '../../test/helpers/apiserver-process.js';

/** Runs `capstan <args>` and resolves once its stdout contains `readyText`. */
export function startComponent(args: string[], readyText: string, teardowns: (() => unknown)[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, [capstanBin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  teardowns.push(async () => { if (child.exitCode === null) { child.kill('SIGTERM'); await exited; } });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => { err = (err + d.toString()).slice(-2000); });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => { out += d.toString(); if (out.includes(readyText)) resolve(child); });
    child.once('exit', (code) => reject(new Error(`${args[0]} exited ${code}: ${err}`)));
  });
}
