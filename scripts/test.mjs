// Runs the whole suite with tap and ends with the summary line CI reads:
// "N passed, N failed, N skipped". A test is a top-level t.test() in a file; a file that
// fails outside any test counts as one failed test.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

const files = process.argv.slice(2);
const args = ['run', '--reporter=tap', '--disable-coverage', ...(files.length ? files : ['dist/test'])];
const child = spawn('node_modules/.bin/tap', args, { stdio: ['ignore', 'pipe', 'inherit'] });

let passed = 0, failed = 0, skipped = 0, fileFailures = 0;
const failures = [];
let currentFile = '';
const rl = createInterface({ input: child.stdout });
rl.on('line', (line) => {
  console.log(line);
  let m;
  if ((m = /^# Subtest: (.*)$/.exec(line))) { currentFile = m[1]; fileFailures = 0; return; }
  if ((m = /^ {4}(not )?ok \d+ - (.*?)(?: # (SKIP|TODO)\b.*| # time=.*)?$/.exec(line))) {
    if (m[3]) skipped++;
    else if (m[1]) { failed++; fileFailures++; failures.push(`${currentFile}: ${m[2]}`); }
    else passed++;
    return;
  }
  if ((m = /^not ok \d+ - (.*?)(?: # .*)?$/.exec(line)) && fileFailures === 0) {
    failed++;
    failures.push(`${m[1]}: failed outside any test`);
  }
});
child.on('close', (code) => {
  if (failures.length) console.log(`\nFailed:\n  ${failures.join('\n  ')}`);
  if (code !== 0 && failed === 0) failed = 1;
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exitCode = failed ? 1 : 0;
});
