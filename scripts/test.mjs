// Runs the whole suite with tap and ends with the summary line CI reads:
// "N passed, N failed, N skipped". A test is a leaf t.test() (one with no subtests of its
// own); a file or parent test that fails outside any leaf counts as one failed test.
// One more result, "no packet left the machine", comes from the egress guard
// (egress-guard.mjs): the run's processes live in a cgroup of their own, and an nftables
// table of the runner's records every packet they send — or the machine forwards — out of
// a default route's interface. Skipped, with the reason, when it cannot run (not root, no nft).
// A whole-suite run adds one more, "lint is clean": ESLint (eslint.config.js) over the tree.
//
//   node scripts/test.mjs                 the whole suite, the egress guard and the linter
//   node scripts/test.mjs --unit          the unit tests only (UNIT below): no root, no
//                                          containerd, no etcd, no sockets to an API server
//   node scripts/test.mjs dist/test/x.test.js ...   just those files (and the egress guard)
import { spawn } from 'node:child_process';
import { startGuard } from './egress-guard.mjs';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? testFiles(join(dir, e.name)) : e.name.endsWith('.test.js') ? [join(dir, e.name)] : []);
}

// The unit tests: pure logic against fakes (fake clientset, fake nft, fake clock), run in a
// minute without root, containerd, etcd or a listening API server. A folder here means every
// test file in it; a new test file that needs none of those belongs in this list.
const UNIT = [
  'test/apiserver/authn', 'test/apiserver/authz',
  'test/apiserver/encryption', 'test/apiextensions', 'test/apiserver/admission', 'test/apiserver/cel',
  'test/apiserver/metric-children',
  'test/apiserver/update-guess',
  'test/cli/authn-flags', 'test/cli/image-socket', 'test/cli/trace',
  'test/client/fake', 'test/client/leaderelection', 'test/client/workqueue',
  'test/cni/ipam',
  'test/controllers/deployment', 'test/controllers/endpoints', 'test/controllers/endpointslice',
  'test/controllers/garbagecollector', 'test/controllers/namespace', 'test/controllers/nodelifecycle',
  'test/controllers/podgc', 'test/controllers/replicaset', 'test/controllers/replicaset-slowstart',
  'test/controllers/statefulset', 'test/controllers/daemonset',
  'test/controllers/serviceaccount', 'test/controllers/serviceaccount-tokens', 'test/controllers/clusterroleaggregation', 'test/controllers/tokencleaner',
  'test/controllers/csr', 'test/controllers/resourcequota', 'test/controllers/csrcleaner', 'test/apiserver/node-authorizer',
  'test/controllers/disruption',
  'test/controllers/job', 'test/controllers/cronjob', 'test/hollow/exit-plan',
  'test/controllers/podautoscaler', 'test/hollow/usage', 'test/apiserver/metrics-api',
  'test/controllers/volume-matching', 'test/scheduler/volume-binding',
  'test/dns/zone',
  'test/fieldmanager/fields-v1',
  'test/hollow/routes',
  'test/labview', 'test/kubelet/restarts', 'test/kubelet/metrics', 'test/kubelet/service-env', 'test/kubelet/image-gc', 'test/kubelet/credentials', 'test/kubelet/ephemeral', 'test/kubelet/podlife-units', 'test/kubelet/node-shutdown-units', 'test/kubelet/soft-eviction-units', 'test/kubelet/relist-units',
  'test/log/fallback',
  'test/native/nft-vocabulary',
  'test/native/nft-fake',
  'test/network-routes/desired',
  'test/network/policy-model',
  'test/network/admin-policy-model',
  'test/operator/conditions',
  'test/patch',
  'test/protobuf/decode', 'test/protobuf/generated-tables',
  'test/proxy/ruleset',
  'test/proxy/read-columns',
  'test/proxy/proxier-plans',
  'test/scheduler/algorithm', 'test/scheduler/plugins', 'test/scheduler/quantity', 'test/scheduler/queue',
  'test/scheduler/matching-pods',
  'test/util',
  'test/bench/suites',
  'test/lab/progress-wait',
];

const argv = process.argv.slice(2);
const unit = argv.includes('--unit');
const named = argv.filter((a) => a !== '--unit');
const all = testFiles('dist/test').sort();
const isUnit = (f) => UNIT.some((u) => f === `dist/${u}.test.js` || f.startsWith(`dist/${u}/`));
const files = unit ? all.filter(isUnit) : named.length ? named : all;
if (unit) {
  const missing = UNIT.filter((u) => !all.some((f) => f === `dist/${u}.test.js` || f.startsWith(`dist/${u}/`)));
  if (missing.length) {
    console.error(`scripts/test.mjs: UNIT names what is not built under dist/: ${missing.join(', ')}`);
    process.exit(1);
  }
}
const args = ['run', '--reporter=tap', '--disable-coverage', ...files];
// The linter runs beside the tests on a whole-suite run only.
const lint = !unit && named.length === 0 ? startLint() : undefined;
const guard = startGuard();
// The guard's table and cgroup go also when the runner dies of an error or a signal.
process.on('exit', () => guard.stop?.());
const child = spawn('node_modules/.bin/tap', args, { stdio: ['ignore', 'pipe', 'inherit'] });
let signalled = null;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    // First signal: let tap stop its tests (they clean up) and report; a second one ends us now.
    if (signalled) process.exit(130);
    signalled = sig;
    child.kill(sig);
  });
}

let passed = 0, failed = 0, skipped = 0;
const failures = [];
// One frame per open subtest: its name, whether it had subtests, whether a leaf under it failed.
const stack = [];
const rl = createInterface({ input: child.stdout });
rl.on('line', (line) => {
  console.log(line);
  let m;
  if ((m = /^( *)# Subtest: (.*)$/.exec(line))) {
    stack.push({ indent: m[1].length, name: m[2], hasChild: false, childFailed: false });
    return;
  }
  m = /^( *)(not )?ok \d+ - (.*?)(?: # (SKIP|TODO)\b.*| # time=.*)?$/.exec(line);
  if (!m) return;
  const top = stack[stack.length - 1];
  if (!top || top.indent !== m[1].length) {
    // A subtest skipped before it started has no "# Subtest:" header.
    if (m[4] && top && top.indent + 4 === m[1].length) { skipped++; top.hasChild = true; }
    return;
  }
  stack.pop();
  const parent = stack[stack.length - 1];
  if (parent) parent.hasChild = true;
  const path = [...stack.map((f) => f.name), top.name].join(' > ');
  if (!top.hasChild) {
    if (m[4]) skipped++;
    else if (m[2]) { failed++; failures.push(path); if (parent) parent.childFailed = true; }
    else passed++;
  } else if (m[2] && !top.childFailed) {
    failed++;
    failures.push(`${path}: failed outside its subtests`);
    if (parent) parent.childFailed = true;
  } else if (m[2] && parent) {
    parent.childFailed = true;
  }
});
function startLint() {
  const child = spawn('node_modules/.bin/eslint', ['.'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  return new Promise((resolve) => {
    child.on('error', (e) => resolve({ code: -1, out: e.message }));
    child.on('close', (code) => resolve({ code, out }));
  });
}

async function lintResult() {
  if (!lint) return;
  const name = 'lint is clean (eslint .)';
  const { code, out } = await lint;
  if (code === 0) {
    console.log(`ok - ${name}`);
    passed++;
    return;
  }
  console.log(out.trim().split('\n').map((l) => `# ${l}`).join('\n'));
  const problems = /(\d+) problems?/.exec(out)?.[1];
  console.log(`not ok - ${name}: ${problems ? `${problems} problem(s)` : `eslint exited ${code}`}`);
  failed++;
  failures.push(`${name}: ${problems ? `${problems} problem(s)` : "eslint failed"}`);
}

function egressResult() {
  const name = 'no packet left the machine';
  if (guard.skip) {
    console.log(`ok - ${name} # SKIP ${guard.skip}`);
    skipped++;
    return;
  }
  let seen;
  try {
    seen = guard.read();
  } catch (e) {
    console.log(`not ok - ${name}: cannot read the guard's table: ${String(e.stderr || e.message).trim()}`);
    failed++;
    failures.push(`${name}: unreadable`);
    return;
  } finally {
    guard.stop();
  }
  if (seen.packets === 0) {
    console.log(`ok - ${name} (watched ${guard.uplinks.join(', ')})`);
    passed++;
    return;
  }
  const list = seen.destinations.map((d) => `${d.address} (${d.packets} packet${d.packets === 1 ? '' : 's'})`).join(', ');
  console.log(`not ok - ${name}: ${seen.packets} packet(s) out of ${guard.uplinks.join(', ')} to ${list || 'addresses the set had no room for'}`);
  failed++;
  failures.push(`${name}: ${list}`);
}

child.on('close', async (code) => {
  egressResult();
  await lintResult();
  if (failures.length) console.log(`\nFailed:\n  ${failures.join('\n  ')}`);
  if (code !== 0 && failed === 0) failed = 1;
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exitCode = failed ? 1 : 0;
});
