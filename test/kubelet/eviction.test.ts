// Node-pressure eviction on a real node, made to happen by the thresholds (not by filling the
// machine): with memory.available<1000Ti the node reports MemoryPressure and evicts its pods
// one per period, BestEffort before Guaranteed, each Failed/Evicted with upstream's message,
// a DisruptionTarget condition and an event; a percentage nodefs threshold gives DiskPressure.
import t from 'tap';
import { runtimeUnavailable } from '../cri/runtime-env.js';
import { BUSYBOX_IMAGE } from '../../src/kubelet/images/index.js';
import { POD_UID_LABEL } from '../../src/kubelet/index.js';
import { startRealNode, until } from './real-node.js';

const why = runtimeUnavailable();

t.test('node-pressure eviction', { skip: why ?? false, timeout: 180_000 }, async (t) => {
  const n = await startRealNode(t, { kubeletFlags: ['--eviction-monitoring-period', '1s', '--node-status-update-frequency', '1s'] });
  const pod = (name: string, resources?: Record<string, unknown>) => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name },
    spec: {
      nodeName: n.nodeName, terminationGracePeriodSeconds: 30,
      containers: [{ name: 'main', image: BUSYBOX_IMAGE, imagePullPolicy: 'IfNotPresent', command: ['sleep', '3600'], ...(resources ? { resources } : {}) }],
    },
  });
  const condition = async (type: string) => JSON.parse(await n.k.ok(['get', 'node', n.nodeName, '-o', 'json'])).status.conditions.find((c: any) => c.type === type);
  await n.k.ok(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [pod('guaranteed', { limits: { cpu: '100m', memory: '32Mi' } }), pod('besteffort')] }));
  for (const name of ['guaranteed', 'besteffort']) {
    await until(async () => {
      if ((await n.podJSON(name)).status?.phase !== 'Running') throw new Error(`${name} not running`);
    }, 30_000, `${name} Running`);
  }
  t.equal((await condition('MemoryPressure')).status, 'False', 'no pressure under the default thresholds');

  await t.test('memory.available below the threshold: MemoryPressure, BestEffort evicted first', async (t) => {
    await n.stopKubelet();
    n.startKubelet(['--eviction-hard', 'memory.available<1000Ti', '--eviction-monitoring-period', '1s', '--node-status-update-frequency', '1s']);
    await until(async () => {
      const c = await condition('MemoryPressure');
      if (c.status !== 'True') throw new Error(JSON.stringify(c));
      t.equal(c.reason, 'KubeletHasInsufficientMemory');
      t.equal(c.message, 'kubelet has insufficient memory available');
    }, 30_000, 'MemoryPressure');
    const evicted: Record<string, any> = {};
    for (const name of ['besteffort', 'guaranteed']) {
      await until(async () => {
        const p = await n.podJSON(name);
        if (p.status?.reason !== 'Evicted') throw new Error(`${name}: ${p.status?.phase}`);
        evicted[name] = p;
      }, 30_000, `${name} evicted`);
    }
    for (const [name, p] of Object.entries(evicted)) {
      t.equal(p.status.phase, 'Failed', `${name} Failed`);
      // Upstream names each container using more memory than it requests (BestEffort requests none).
      t.match(p.status.message, name === 'besteffort'
        ? /^The node was low on resource: memory\. Threshold quantity: 1000Ti, available: \d+(Ki|Mi)?\. (Container main was using \d+(Ki|Mi)?, request is 0, has larger consumption of memory\. )?$/
        : /^The node was low on resource: memory\. Threshold quantity: 1000Ti, available: \d+(Ki|Mi)?\. $/);
      const dt = p.status.conditions.find((c: any) => c.type === 'DisruptionTarget');
      t.equal(dt?.status, 'True');
      t.equal(dt?.reason, 'TerminationByKubelet');
      await until(async () => {
        const running = await n.env.client.listContainers({ label_selector: { [POD_UID_LABEL]: p.metadata.uid }, state: { state: 'CONTAINER_RUNNING' } });
        if (running.length) throw new Error('still running');
      }, 20_000, `${name} containers stopped`);
    }
    const events = JSON.parse(await n.k.ok(['get', 'events', '--field-selector', 'reason=Evicted', '-o', 'json'])).items;
    const first = (name: string) => events.find((e: any) => e.involvedObject.name === name);
    t.ok(first('besteffort') && first('guaranteed'), 'an Evicted event each');
    t.ok(Date.parse(evicted.besteffort.status.conditions.find((c: any) => c.type === 'DisruptionTarget').lastTransitionTime)
      <= Date.parse(evicted.guaranteed.status.conditions.find((c: any) => c.type === 'DisruptionTarget').lastTransitionTime), 'BestEffort went first');
  });

  await t.test('nodefs.available as a percentage: DiskPressure', async (t) => {
    await n.stopKubelet();
    n.startKubelet(['--eviction-hard', 'nodefs.available<100%', '--eviction-monitoring-period', '1s', '--node-status-update-frequency', '1s']);
    await until(async () => {
      const c = await condition('DiskPressure');
      if (c.status !== 'True') throw new Error(JSON.stringify(c));
      t.equal(c.reason, 'KubeletHasDiskPressure');
      t.equal((await condition('MemoryPressure')).status, 'False');
    }, 30_000, 'DiskPressure');
  });

  await t.test('a soft threshold: pressure at once, eviction after its grace period, the pod stopped with its (capped) grace', async (t) => {
    await n.stopKubelet();
    n.startKubelet(['--eviction-monitoring-period', '1s', '--node-status-update-frequency', '1s']);
    await n.k.ok(['apply', '-f', '-'], JSON.stringify({
      ...pod('soft'), spec: { ...pod('soft').spec, containers: [{ name: 'main', image: BUSYBOX_IMAGE, imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', 'trap "echo got-term > /dev/termination-log; exit 0" TERM; while true; do sleep 0.1; done'] }] },
    }));
    await until(async () => {
      if ((await n.podJSON('soft')).status?.phase !== 'Running') throw new Error('soft not running');
    }, 30_000, 'soft Running');
    await n.stopKubelet();
    n.startKubelet(['--eviction-soft', 'memory.available<1000Ti', '--eviction-soft-grace-period', 'memory.available=4s', '--eviction-max-pod-grace-period', '5',
      '--eviction-monitoring-period', '1s', '--node-status-update-frequency', '1s']);
    await until(async () => {
      if ((await condition('MemoryPressure')).status !== 'True') throw new Error('no MemoryPressure');
    }, 30_000, 'MemoryPressure from the soft threshold');
    let p: any;
    await until(async () => {
      p = await n.podJSON('soft');
      if (!p.status?.containerStatuses?.[0]?.state?.terminated) throw new Error(`soft: ${p.status?.reason} ${p.status?.phase}`);
    }, 40_000, 'soft evicted and stopped');
    t.match(p.status, { phase: 'Failed', reason: 'Evicted' });
    t.match(p.status.message, /^The node was low on resource: memory\. Threshold quantity: 1000Ti, available: /);
    const pressureSince = Date.parse((await condition('MemoryPressure')).lastTransitionTime);
    const evictedAt = Date.parse(p.status.conditions.find((c: any) => c.type === 'DisruptionTarget').lastTransitionTime);
    t.ok(evictedAt - pressureSince >= 3_000, `evicted ${evictedAt - pressureSince} ms after the pressure began (grace period 4 s; timestamps in whole seconds)`);
    t.match(p.status.containerStatuses[0].state.terminated, { exitCode: 0, message: 'got-term\n' }, 'SIGTERM within the pod\'s grace period (a hard eviction kills at once)');
  });

  await n.k.ok(['delete', 'pods', '--all', '--wait=true', '--timeout=60s']);
});
