// `capstan trace [--kubeconfig F] [--context C] -- COMMAND [ARGS...]`: runs COMMAND (kubectl,
// usually) with a kubeconfig that sends it through a recording proxy, then prints the stages
// the API server reported for each request it made, as a waterfall, on stderr.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { parseArgs } from 'node:util';
import yaml from 'js-yaml';
import { loadKubeconfig } from '../../client/kubeconfig.js';
import { TraceProxy } from './proxy.js';
import { renderWaterfall } from './waterfall.js';

const usage = 'usage: capstan trace [--kubeconfig FILE] [--context NAME] -- COMMAND [ARGS...]\n';

export async function run(argv: string[]): Promise<number> {
  const dash = argv.indexOf('--');
  const own = dash < 0 ? argv : argv.slice(0, dash);
  const command = dash < 0 ? [] : argv.slice(dash + 1);
  const { values } = parseArgs({ args: own, options: { kubeconfig: { type: 'string' }, context: { type: 'string' } }, strict: true });
  if (!command.length) {
    process.stderr.write(usage);
    return 2;
  }
  const path = values.kubeconfig ?? process.env.KUBECONFIG?.split(delimiter).find(Boolean) ?? join(homedir(), '.kube', 'config');
  const cfg = loadKubeconfig(path, values.context);
  const proxy = new TraceProxy(cfg);
  const url = await proxy.start();
  const dir = mkdtempSync(join(tmpdir(), 'capstan-trace-'));
  try {
    // The proxy holds the credentials; the command talks plain HTTP to it on loopback.
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, yaml.dump({
      apiVersion: 'v1', kind: 'Config', clusters: [{ name: 'traced', cluster: { server: url } }], users: [{ name: 'traced', user: {} }],
      contexts: [{ name: 'traced', context: { cluster: 'traced', user: 'traced', ...(cfg.namespace ? { namespace: cfg.namespace } : {}) } }], 'current-context': 'traced',
    }), { mode: 0o600 });
    const child = spawn(command[0], command.slice(1), { stdio: 'inherit', env: { ...process.env, KUBECONFIG: kubeconfig } });
    const code = await new Promise<number>((res) => {
      child.once('error', (e) => { process.stderr.write(`capstan trace: ${command[0]}: ${e.message}\n`); res(127); });
      child.once('exit', (c, signal) => res(c ?? (signal ? 128 : 1)));
    });
    process.stderr.write(renderWaterfall(proxy.requests));
    return code;
  } finally {
    await proxy.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
