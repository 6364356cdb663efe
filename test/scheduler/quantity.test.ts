// Pod requests (init containers, sidecars, overhead).
import t from 'tap';
import { podRequests } from '../../src/scheduler/resources.js';
import { pod } from './fixtures.js';

t.test('pod requests', async (t) => {
  const cases: { name: string; spec: Parameters<typeof pod>[1]; cpu: number; memory: number; nzCpu: number; nzMem: number }[] = [
    { name: 'one container', spec: { cpu: '250m', memory: '64Mi' }, cpu: 250, memory: 64 * 2 ** 20, nzCpu: 250, nzMem: 64 * 2 ** 20 },
    { name: 'no requests', spec: {}, cpu: 0, memory: 0, nzCpu: 100, nzMem: 200 * 2 ** 20 },
    {
      name: 'init container larger than containers (max, not sum)', cpu: 1000, memory: 64 * 2 ** 20, nzCpu: 1000, nzMem: 64 * 2 ** 20,
      spec: { cpu: '250m', memory: '64Mi', initContainers: [{ name: 'i', resources: { requests: { cpu: '1', memory: '1Mi' } } }] },
    },
    {
      name: 'sidecar adds to containers and to later init containers', cpu: 700, memory: 0, nzCpu: 700, nzMem: 400 * 2 ** 20,
      spec: { cpu: '200m', initContainers: [{ name: 's', restartPolicy: 'Always', resources: { requests: { cpu: '100m' } } }, { name: 'i', resources: { requests: { cpu: '600m' } } }] },
    },
    { name: 'overhead', spec: { cpu: '100m', overhead: { cpu: '50m', memory: '10Mi' } }, cpu: 150, memory: 10 * 2 ** 20, nzCpu: 150, nzMem: 210 * 2 ** 20 },
  ];
  for (const c of cases) {
    const p = pod('p', c.spec);
    const r = podRequests(p), nz = podRequests(p, true);
    t.same([r.milliCPU, r.memory, nz.milliCPU, nz.memory], [c.cpu, c.memory, c.nzCpu, c.nzMem], c.name);
  }
  const limitsOnly = pod('p');
  limitsOnly.spec.containers[0].resources = { limits: { cpu: '2', memory: '1Gi' } };
  t.same([podRequests(limitsOnly).milliCPU, podRequests(limitsOnly).memory], [2000, 2 ** 30], 'limits stand in for missing requests');
  t.same(podRequests(pod('p', { extra: { 'example.com/gpu': '2' } })).scalar, { 'example.com/gpu': 2 }, 'extended resources');
});
