// `capstan up --hollow-nodes` dials nothing off the machine. It runs in a namespace whose
// default route is a fake uplink (test/helpers/fake-uplink.ts), watched by the test runner's
// egress guard; kubectl starts a pod on a hollow node and asks for its logs and an exec, which
// make the API server dial that node's kubelet API at its InternalIP (served by the
// hollow-nodes process on a loopback address). A made-up routable address would go out of the
// uplink (on a real machine: off it).
import t from 'tap';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as Guard from '../../scripts/egress-guard.mjs';
import { startCapstanUp } from '../helpers/capstan-up.js';
import { eventually, kubectlFor } from '../helpers/kubectl.js';
import { fakeUplinkWorld } from '../helpers/fake-uplink.js';

const guard = (await import(pathToFileURL(fileURLToPath(new URL('../../../scripts/egress-guard.mjs', import.meta.url))).href)) as typeof Guard;
const why = guard.unavailable();

t.test('capstan up with hollow nodes sends nothing out of the uplink', { skip: why ?? false, timeout: 180_000 }, async (t) => {
  const { id, h } = fakeUplinkWorld(t);
  const cgroup = guard.makeCgroup(`capstan-up-egress-${id}`);
  t.teardown(() => cgroup.remove());
  const table = guard.tableName();
  guard.installGuard({ table, uplinks: guard.defaultRouteInterfaces(h), cgroup, netns: h });
  t.teardown(() => guard.removeGuard({ table, netns: h }));
  // This process and what it starts from now on (capstan up, kubectl) are the watched ones.
  cgroup.enter();

  const up = await startCapstanUp(t, ['--no-node', '--hollow-nodes', '1'], { netns: h });
  const k = kubectlFor(t, up.kubeconfig, { netns: h });
  await eventually(async () => / Ready /.test(await k.ok(['get', 'nodes', '--no-headers'])), 60_000, 'the hollow node Ready');
  await k.ok(['run', 'web', '--image=localhost/capstan/busybox:1']);
  await k.ok(['wait', '--for=condition=Ready', 'pod/web', '--timeout=60s']);
  // Bounded: a dial that went out of the uplink would wait for its connect timeout.
  const logs = await k(['logs', 'web', '--request-timeout=10s']);
  t.equal(logs.code, 0, `the hollow kubelet API serves logs (${logs.stderr.trim()})`);
  t.match(logs.stdout, /is hollow/, 'the log says the container is hollow');
  const exec = await k(['exec', 'web', '--request-timeout=10s', '--', 'true']);
  t.not(exec.code, 0, 'a hollow container cannot be exec-ed into');
  t.match(exec.stderr, /hollow/, `the API server answers with the hollow kubelet's error (${exec.stderr.trim()})`);

  const seen = guard.readEgress({ table, netns: h });
  t.same(seen.destinations.map((d) => d.address), [], 'no destination recorded');
  t.equal(seen.packets, 0, 'no packet went out of the uplink');
});
