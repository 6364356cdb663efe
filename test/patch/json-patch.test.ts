import t from 'tap';
import { applyPatch, PatchError } from '../../src/apiserver/patch/index.js';

const doc = () => ({
  metadata: { name: 'web', labels: { app: 'web', 'a/b': 'slash', 'm~n': 'tilde' } },
  spec: { replicas: 1, args: ['a', 'b'] },
});

const apply = (ops: unknown) => applyPatch('json', doc(), ops, undefined);

t.test('operations apply in order to a copy', async (t) => {
  const cases: { name: string; ops: unknown; check: (r: any) => unknown; want: unknown }[] = [
    { name: 'add a map key', ops: [{ op: 'add', path: '/metadata/labels/tier', value: 'fe' }], check: (r) => r.metadata.labels.tier, want: 'fe' },
    { name: 'add replaces an existing key', ops: [{ op: 'add', path: '/spec/replicas', value: 3 }], check: (r) => r.spec.replicas, want: 3 },
    { name: 'add with - appends', ops: [{ op: 'add', path: '/spec/args/-', value: 'c' }], check: (r) => r.spec.args, want: ['a', 'b', 'c'] },
    { name: 'add at an index inserts', ops: [{ op: 'add', path: '/spec/args/0', value: 'z' }], check: (r) => r.spec.args, want: ['z', 'a', 'b'] },
    { name: 'add a null value', ops: [{ op: 'add', path: '/spec/paused', value: null }], check: (r) => r.spec.paused, want: null },
    { name: 'remove an escaped ~1 key', ops: [{ op: 'remove', path: '/metadata/labels/a~1b' }], check: (r) => Object.keys(r.metadata.labels), want: ['app', 'm~n'] },
    { name: 'remove an escaped ~0 key', ops: [{ op: 'remove', path: '/metadata/labels/m~0n' }], check: (r) => Object.keys(r.metadata.labels), want: ['app', 'a/b'] },
    { name: 'remove an array element', ops: [{ op: 'remove', path: '/spec/args/0' }], check: (r) => r.spec.args, want: ['b'] },
    { name: 'replace', ops: [{ op: 'replace', path: '/spec/replicas', value: 5 }], check: (r) => r.spec.replicas, want: 5 },
    { name: 'move', ops: [{ op: 'move', from: '/metadata/labels/app', path: '/metadata/labels/name' }], check: (r) => r.metadata.labels, want: { 'a/b': 'slash', 'm~n': 'tilde', name: 'web' } },
    { name: 'copy', ops: [{ op: 'copy', from: '/spec/args', path: '/spec/command' }], check: (r) => r.spec.command, want: ['a', 'b'] },
    { name: 'passing test then replace', ops: [{ op: 'test', path: '/spec/replicas', value: 1 }, { op: 'replace', path: '/spec/replicas', value: 2 }], check: (r) => r.spec.replicas, want: 2 },
    { name: 'test compares objects deeply', ops: [{ op: 'test', path: '/spec', value: { args: ['a', 'b'], replicas: 1 } }], check: (r) => r.spec.replicas, want: 1 },
    { name: 'empty path replaces the document', ops: [{ op: 'add', path: '', value: { x: 1 } }], check: (r) => r, want: { x: 1 } },
  ];
  for (const c of cases) t.same(c.check(apply(c.ops)), c.want, c.name);
});

t.test('the original is not mutated', async (t) => {
  const original = doc();
  applyPatch('json', original, [{ op: 'remove', path: '/spec/args/0' }, { op: 'add', path: '/metadata/labels/x', value: 'y' }], undefined);
  t.same(original, doc());
});

t.test('failures are PatchErrors with the status Kubernetes answers', async (t) => {
  const cases: { name: string; ops: unknown; code: 400 | 422; message: RegExp }[] = [
    { name: 'body not an array', ops: { op: 'add', path: '/x', value: 1 }, code: 400, message: /JSON array/ },
    { name: 'operation not an object', ops: ['add'], code: 400, message: /operation 0/ },
    { name: 'unknown op', ops: [{ op: 'frobnicate', path: '/x' }], code: 422, message: /unknown JSON patch operation "frobnicate"/ },
    { name: 'missing op', ops: [{ path: '/x' }], code: 422, message: /unknown JSON patch operation/ },
    { name: 'failed test', ops: [{ op: 'test', path: '/spec/replicas', value: 2 }], code: 422, message: /test failed at \/spec\/replicas: expected 2, found 1/ },
    { name: 'test of a missing path', ops: [{ op: 'test', path: '/spec/nope', value: 2 }], code: 422, message: /found nothing/ },
    { name: 'remove a missing key', ops: [{ op: 'remove', path: '/metadata/annotations' }], code: 422, message: /does not exist/ },
    { name: 'replace a missing key', ops: [{ op: 'replace', path: '/spec/paused', value: true }], code: 422, message: /does not exist/ },
    { name: 'add under a missing parent', ops: [{ op: 'add', path: '/status/replicas', value: 1 }], code: 422, message: /parent path does not exist/ },
    { name: 'index out of bounds', ops: [{ op: 'add', path: '/spec/args/3', value: 'x' }], code: 422, message: /out of bounds/ },
    { name: 'remove with -', ops: [{ op: 'remove', path: '/spec/args/-' }], code: 422, message: /not an array index/ },
    { name: 'leading zero index', ops: [{ op: 'remove', path: '/spec/args/01' }], code: 422, message: /not an array index/ },
    { name: 'pointer without leading slash', ops: [{ op: 'add', path: 'spec/x', value: 1 }], code: 422, message: /must start with "\/"/ },
    { name: 'bad escape', ops: [{ op: 'remove', path: '/metadata/labels/a~2b' }], code: 422, message: /bad escape/ },
    { name: 'path not a string', ops: [{ op: 'remove', path: 7 }], code: 422, message: /must be a string/ },
    { name: 'add without value', ops: [{ op: 'add', path: '/x' }], code: 422, message: /has no value/ },
    { name: 'move into own child', ops: [{ op: 'move', from: '/spec', path: '/spec/inner' }], code: 422, message: /own child/ },
    { name: 'copy from a missing path', ops: [{ op: 'copy', from: '/nope', path: '/x' }], code: 422, message: /does not exist/ },
  ];
  for (const c of cases) {
    const err = (() => {
      try {
        apply(c.ops);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    t.ok(err instanceof PatchError, `${c.name}: throws PatchError`);
    t.equal((err as PatchError).code, c.code, `${c.name}: code`);
    t.match((err as PatchError).message, c.message, `${c.name}: message`);
  }
});

t.test('a failed operation leaves no partial result behind', async (t) => {
  const original = doc();
  t.throws(() => applyPatch('json', original, [{ op: 'add', path: '/spec/replicas', value: 9 }, { op: 'test', path: '/spec/replicas', value: 1 }], undefined));
  t.equal(original.spec.replicas, 1);
});
