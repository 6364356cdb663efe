// Which processes `capstan reset` takes to be a data dir's (no root: a made-up process table).
import t from 'tap';
import { dataDirProcesses, type ProcessInfo } from '../../src/reset/processes.js';

const D = '/srv/cluster/.capstan';
const bin = '/opt/capstan/bin/capstan.js';
let next = 1000;
const proc = (args: string[], o: { cwd?: string; ppid?: number; pid?: number } = {}): ProcessInfo => ({ pid: o.pid ?? next++, ppid: o.ppid ?? 1, args, cwd: o.cwd ?? '/' });

t.test('a data dir\'s processes, verified by their arguments, never by name alone', async (t) => {
  const up = proc(['node', bin, 'up', '--data-dir', '.capstan'], { cwd: '/srv/cluster' });
  const upDefault = proc(['node', bin, 'up', '--port', '7443'], { cwd: '/srv/cluster' });
  const agent = proc(['/usr/bin/node', bin, 'network-agent', `--kubeconfig=${D}/admin.kubeconfig`, '--state-dir', `${D}/network`], { ppid: up.pid });
  const containerd = proc(['containerd', '--config', `${D}/containerd/config.toml`]);
  const shim = proc(['/usr/bin/containerd-shim-runc-v2', '-namespace', 'k8s.io', '-id', 'abc', '-address', `${D}/containerd/containerd.sock`]);
  const pause = proc(['/pause'], { ppid: shim.pid });
  const workload = proc(['sleep', '3600'], { ppid: shim.pid });
  const others = [
    proc(['node', bin, 'up', '--data-dir', '/srv/cluster/.capstan-2']), // a prefix of the name is not the dir
    proc(['node', bin, 'up'], { cwd: '/home/me' }), // the default dir of another cwd
    proc(['node', bin, 'up', '--data-dir', '/elsewhere'], { cwd: '/srv/cluster' }), // --data-dir given: the cwd default does not apply
    proc(['tail', '-f', `${D}/containerd/containerd.log`]), // not capstan's
    proc(['/usr/bin/containerd-shim-runc-v2', '-namespace', 'k8s.io', '-id', 'x', '-address', '/run/containerd/containerd.sock']),
    proc(['containerd']), // the host's own
    proc(['sleep', '3600']),
  ];
  const self = proc(['node', bin, 'reset', '--data-dir', D], { pid: process.pid, ppid: 77 });
  const sudo = proc(['sudo', 'node', bin, 'reset', '--data-dir', D], { pid: 77 });
  const found = dataDirProcesses(D, [up, upDefault, agent, containerd, shim, pause, workload, ...others, self, sudo]);
  t.same(found.capstan.map((p) => p.pid), [up.pid, upDefault.pid, agent.pid], 'capstan processes: by --data-dir against the cwd, the default dir, and paths in the dir');
  t.same(found.containerd.map((p) => p.pid), [containerd.pid]);
  t.same(found.shims.map((p) => p.pid), [shim.pid]);
  t.same(found.containers.map((p) => p.pid), [pause.pid, workload.pid], 'the shims\' children');
});
