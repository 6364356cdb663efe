// Hollow containers exit as their command says: sleep steps add up, the first exit ends.
import t from 'tap';
import { exitPlan } from '../../src/hollow/exit-plan.js';

const c = (command?: string[], args?: string[]) => ({ name: 'c', image: 'busybox', command, args });

t.test('commands a hollow container reads', async (t) => {
  t.same(exitPlan(c(['sh', '-c', 'sleep 5; exit 3'])), { afterMs: 5000, exitCode: 3 });
  t.same(exitPlan(c(['sh'], ['-c', 'echo hi && sleep 0.5 && sleep 1m'])), { afterMs: 60_500, exitCode: 0 });
  t.same(exitPlan(c(['/bin/sh', '-c', 'sleep 2\nfalse\nsleep 9'])), { afterMs: 2000, exitCode: 1 });
  t.same(exitPlan(c(['sleep', '2'])), { afterMs: 2000, exitCode: 0 });
  t.same(exitPlan(c(['false'])), { afterMs: 0, exitCode: 1 });
  t.same(exitPlan(c(['sh', '-c', 'exit 300'])), { afterMs: 0, exitCode: 44 }, 'exit codes wrap at 256 as in a shell');
});

t.test('containers that run until deleted', async (t) => {
  t.equal(exitPlan(c()), undefined, 'no command: the image runs');
  t.equal(exitPlan(c(['sleep', 'infinity'])), undefined);
  t.equal(exitPlan(c(['sh', '-c', 'while true; do sleep 1; done'])), undefined);
  t.equal(exitPlan(c(['nginx', '-g', 'daemon off;'])), undefined);
});
