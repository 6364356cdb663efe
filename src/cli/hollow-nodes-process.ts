// `capstan up --hollow-nodes N` runs the hollow nodes as a child process (`capstan
// hollow-nodes`), as kubemark runs them apart from the control plane: they stand in for other
// machines, and on one event loop with the API server, controller-manager and scheduler their
// Lease renewals and pod status writes queue behind the control plane's work (5,000 nodes
// and 50,000 pods in one process left nodes NotReady for moments and created ~40 pods/s).
//
// The IPC channel is the child's lifeline, as for the network agent: the child says when its
// nodes are registered, and shuts down when the channel closes because `up` is gone.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { stopChild } from '../util/index.js';

const capstanBin = fileURLToPath(new URL('../../../bin/capstan.js', import.meta.url));

/** The message `capstan hollow-nodes` sends its parent once every node is registered. */
export const HOLLOW_NODES_READY = 'capstan-hollow-nodes-ready';

export interface HollowNodesProcess {
  pid: number;
  stop(): Promise<void>;
}

/** Forks `capstan hollow-nodes <args>`; resolves once its nodes are registered, rejects if it exits first. */
export function startHollowNodesProcess(args: string[]): Promise<HollowNodesProcess> {
  const child: ChildProcess = fork(capstanBin, ['hollow-nodes', ...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const stop = async () => { await stopChild(child, 30_000); };
  return new Promise((resolve, reject) => {
    const exited = (code: number | null, signal: NodeJS.Signals | null) =>
      reject(new Error(`capstan hollow-nodes exited before its nodes were registered (${signal ?? `code ${code}`})`));
    child.once('exit', exited);
    child.once('error', reject);
    child.on('message', (m) => {
      if (m !== HOLLOW_NODES_READY) return;
      child.off('exit', exited);
      resolve({ pid: child.pid!, stop });
    });
  });
}
