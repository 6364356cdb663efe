// `capstan lab up|down|kubectl`: a multi-node cluster on one machine out of network
// namespaces (src/lab). `up` leaves the components running detached and exits.
import { parseArgs } from 'node:util';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { labDown, labUp, readState, usage } from '../lab/index.js';
import { untilSignal } from './signals.js';

const DEFAULT_DIR = '.capstan-lab';
const help = `usage:
  capstan lab up [--nodes N] [--subnets S] [--dir D]   build the lab, wait for all nodes Ready
      [--metric-resolution 15s] [--horizontal-pod-autoscaler-sync-period 15s]   passed to the control plane
  capstan lab down [--dir D]                           remove everything the lab created
  capstan lab kubectl [--dir D] -- ARGS...             kubectl with the lab's admin kubeconfig
  capstan lab view [--dir D | --kubeconfig F] [--port P]
                                                       a live web page of the lab on http://127.0.0.1:P/
`;

export async function run(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const err = (s: string) => process.stderr.write(`${s}\n`);
  if (sub === 'up') {
    const { values } = parseArgs({ args: rest, strict: true, options: {
      dir: { type: 'string', default: DEFAULT_DIR }, nodes: { type: 'string', default: '3' }, subnets: { type: 'string', default: '2' },
      'ready-timeout': { type: 'string', default: '240' },
      'metric-resolution': { type: 'string' }, 'horizontal-pod-autoscaler-sync-period': { type: 'string' },
    } });
    const controlPlaneArgs = (['metric-resolution', 'horizontal-pod-autoscaler-sync-period'] as const)
      .flatMap((f) => values[f] === undefined ? [] : [`--${f}`, values[f]!]);
    const state = await labUp({ dir: values.dir, nodes: Number(values.nodes), subnets: Number(values.subnets),
      readyTimeoutMs: Number(values['ready-timeout']) * 1000, controlPlaneArgs, log: (s) => err(`capstan lab: ${s}`) });
    process.stdout.write(usage(state));
    return 0;
  }
  if (sub === 'down') {
    const { values } = parseArgs({ args: rest, strict: true, options: { dir: { type: 'string', default: DEFAULT_DIR } } });
    const { problems } = await labDown(resolve(values.dir), (s) => err(`capstan lab: ${s}`));
    for (const p of problems) err(`capstan lab down: ${p}`);
    return problems.length ? 1 : 0;
  }
  if (sub === 'kubectl') {
    const { values, positionals } = parseArgs({ args: rest, strict: true, allowPositionals: true, options: { dir: { type: 'string', default: DEFAULT_DIR } } });
    const state = readState(resolve(values.dir));
    if (!state?.kubeconfig) { err(`capstan lab: no lab in ${resolve(values.dir)}`); return 1; }
    // A lab made before the host listener has only the lab-internal kubeconfig: use it inside.
    const inLab = state.hostServer ? [] : ['nsenter', `--net=/run/netns/${state.topology.controlPlane.netns}`];
    const [cmd, ...args] = [...inLab, 'kubectl', '--kubeconfig', state.kubeconfig, ...positionals];
    const r = spawnSync(cmd!, args, { stdio: 'inherit' });
    return r.status ?? 1;
  }
  if (sub === 'view') {
    const { values } = parseArgs({ args: rest, strict: true, options: {
      dir: { type: 'string', default: DEFAULT_DIR }, kubeconfig: { type: 'string' }, port: { type: 'string', default: '0' },
    } });
    const kubeconfig = values.kubeconfig ?? readState(resolve(values.dir))?.kubeconfig;
    if (!kubeconfig) { err(`capstan lab: no lab in ${resolve(values.dir)} (or pass --kubeconfig)`); return 1; }
    const { serveLabView } = await import('../labview/index.js');
    const view = await serveLabView({ kubeconfig, port: Number(values.port) });
    process.stdout.write(`capstan lab view: ${view.url}\n`);
    await untilSignal();
    await view.close();
    return 0;
  }
  process.stdout.write(help);
  return sub === undefined || sub === 'help' || sub === '--help' || sub === '-h' ? 0 : 2;
}
