// QoS classes and pod-level cgroups on a real node: status.qosClass as upstream computes
// it, each pod's cgroup under kubepods[/burstable|/besteffort]/pod<uid> with the pod's
// shares, quota and memory limit, the container's own limits from CRI, OOMKilled (137)
// for a container that allocates past its limit, and the cgroups gone with the pods.
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runtimeUnavailable } from '../cri/runtime-env.js';
import { BUSYBOX_IMAGE } from '../../src/kubelet/images/index.js';
import { POD_UID_LABEL } from '../../src/kubelet/index.js';
import { startRealNode, until } from './real-node.js';

const why = runtimeUnavailable();
const V1 = existsSync('/sys/fs/cgroup/memory/cgroup.procs');

t.test('QoS classes, pod cgroups and OOMKilled', { skip: why ?? (V1 ? false : 'cgroup v1 checks') , timeout: 180_000 }, async (t) => {
  const n = await startRealNode(t);
  const pod = (name: string, resources: Record<string, unknown> | undefined, command = ['sleep', '3600'], restartPolicy = 'Always') => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name },
    spec: {
      nodeName: n.nodeName, terminationGracePeriodSeconds: 0, restartPolicy,
      containers: [{ name: 'main', image: BUSYBOX_IMAGE, imagePullPolicy: 'IfNotPresent', command, ...(resources ? { resources } : {}) }],
    },
  });
  const running = async (name: string) => {
    let p: any;
    await until(async () => {
      p = await n.podJSON(name);
      if (p.status?.phase !== 'Running') throw new Error(JSON.stringify(p.status));
    }, 30_000, `${name} Running`);
    return p;
  };
  const cg = (controller: string, path: string, file: string) => readFileSync(join('/sys/fs/cgroup', controller, path, file), 'utf8').trim();
  const base = `${n.env.cgroupParent}/kubepods`;

  await n.k.ok(['apply', '-f', '-'], JSON.stringify({
    apiVersion: 'v1', kind: 'List', items: [
      pod('guaranteed', { limits: { cpu: '200m', memory: '64Mi' } }),
      pod('burstable', { requests: { cpu: '100m' }, limits: { memory: '48Mi' } }),
      pod('besteffort', undefined),
      pod('zero', { requests: { cpu: '0' } }),
    ],
  }));
  const pods = Object.fromEntries(await Promise.all(['guaranteed', 'burstable', 'besteffort', 'zero'].map(async (name) => [name, await running(name)])));

  t.test('status.qosClass', async (t) => {
    t.equal(pods.guaranteed.status.qosClass, 'Guaranteed');
    t.equal(pods.burstable.status.qosClass, 'Burstable');
    t.equal(pods.besteffort.status.qosClass, 'BestEffort');
    t.equal(pods.zero.status.qosClass, 'BestEffort', 'a request of 0 is no request');
  });

  t.test('pod cgroups carry the pod\'s limits', async (t) => {
    const g = `${base}/pod${pods.guaranteed.metadata.uid}`;
    t.equal(cg('cpu', g, 'cpu.shares'), '204');
    t.equal(cg('cpu', g, 'cpu.cfs_quota_us'), '20000');
    t.equal(cg('cpu', g, 'cpu.cfs_period_us'), '100000');
    t.equal(cg('memory', g, 'memory.limit_in_bytes'), String(64 * 2 ** 20));
    const b = `${base}/burstable/pod${pods.burstable.metadata.uid}`;
    t.equal(cg('cpu', b, 'cpu.shares'), '102');
    t.equal(cg('cpu', b, 'cpu.cfs_quota_us'), '-1', 'no quota: the container has no cpu limit');
    t.equal(cg('memory', b, 'memory.limit_in_bytes'), String(48 * 2 ** 20));
    const e = `${base}/besteffort/pod${pods.besteffort.metadata.uid}`;
    t.equal(cg('cpu', e, 'cpu.shares'), '2');
    t.equal(cg('cpu', `${base}/besteffort`, 'cpu.shares'), '2');
    // The container's own cgroup (containerd names it after the container id) sits inside the pod's, with CRI's limits.
    const [c] = await n.env.client.listContainers({ label_selector: { [POD_UID_LABEL]: pods.guaranteed.metadata.uid } });
    t.equal(cg('memory', `${g}/${c.id}`, 'memory.limit_in_bytes'), String(64 * 2 ** 20));
    t.equal(cg('cpu', `${g}/${c.id}`, 'cpu.cfs_quota_us'), '20000');
  });

  t.test('a container allocating past its limit is OOMKilled (137)', async (t) => {
    await n.k.ok(['apply', '-f', '-'], JSON.stringify(pod('hog', { limits: { memory: '32Mi' } }, ['dd', 'if=/dev/zero', 'of=/dev/null', 'bs=64M', 'count=1'], 'Never')));
    let p: any;
    await until(async () => {
      p = await n.podJSON('hog');
      if (p.status?.phase !== 'Failed') throw new Error(JSON.stringify(p.status));
    }, 30_000, 'hog Failed');
    const term = p.status.containerStatuses[0].state.terminated;
    t.equal(term.reason, 'OOMKilled');
    t.equal(term.exitCode, 137);
    t.match(await n.k.ok(['get', 'pod', 'hog', '--no-headers']), /hog\s+0\/1\s+OOMKilled\s+0/);
  });

  await t.test('pod cgroups are removed with their pods', async (t) => {
    const dirs = Object.values(pods).map((p: any) => p.status.qosClass === 'Guaranteed' ? `${base}/pod${p.metadata.uid}` : `${base}/${p.status.qosClass.toLowerCase()}/pod${p.metadata.uid}`);
    t.ok(dirs.every((d) => existsSync(join('/sys/fs/cgroup/memory', d))));
    await n.k.ok(['delete', 'pods', '--all', '--wait=true', '--timeout=60s']);
    await until(async () => {
      const left = dirs.filter((d) => existsSync(join('/sys/fs/cgroup/memory', d)) || existsSync(join('/sys/fs/cgroup/cpu', d)));
      if (left.length) throw new Error(left.join(' '));
    }, 20_000, 'pod cgroups gone');
  });
});
