// A read-modify-write that starts from a guess of the current object (the watch cache, as
// kube-apiserver's GuaranteedUpdate takes the cacher's copy) against a real SQLite store: a
// stale guess never loses an update, never refuses a write that is current in storage, and
// never passes a no-op off as the stored state.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/storage/index.js';
import type { KeyValue, Store } from '../../src/storage/store.js';
import { GenericRegistry } from '../../src/apiserver/registry/generic.js';
import { leases } from '../../src/apiserver/registry/coordination/leases.js';
import type { RequestContext } from '../../src/apiserver/registry/types.js';
import { StatusError } from '../../src/apiserver/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'capstan-update-guess-'));
const store: Store = await openStore(`sqlite://${join(dir, 'state.db')}`);
t.teardown(async () => { await store.close(); rmSync(dir, { recursive: true, force: true }); });
const reg = new GenericRegistry(leases, store);
const ctx = (): RequestContext => ({ user: { username: 'test', groups: [] }, dryRun: false, now: new Date() });
const ns = 'kube-node-lease';

/** A guess that answers what storage held at some earlier moment, and counts its reads. */
function frozen(kv: KeyValue | null) {
  const guess = { reads: 0, get: async () => { guess.reads++; return kv; } };
  return guess;
}

async function lease(name: string) {
  await reg.create({ metadata: { name, namespace: ns }, spec: { holderIdentity: 'a', leaseDurationSeconds: 40 } }, ctx());
  const before = await store.get(reg.key(ns, name));
  // Someone else writes after the guess was taken.
  await reg.update(ns, name, (o) => ({ ...o, spec: { ...o.spec, holderIdentity: 'b', leaseTransitions: 1 } }), ctx());
  const current = await reg.get(ns, name);
  return { stale: frozen(before), current };
}

t.test('a fresh guess is used without reading storage first', async (t) => {
  await reg.create({ metadata: { name: 'fresh', namespace: ns }, spec: { holderIdentity: 'a' } }, ctx());
  const guess = frozen(await store.get(reg.key(ns, 'fresh')));
  const out = await reg.update(ns, 'fresh', (o) => ({ ...o, spec: { ...o.spec, holderIdentity: 'z' } }), ctx(), '', guess);
  t.equal(guess.reads, 1);
  t.equal(out.spec.holderIdentity, 'z');
  t.equal((await reg.get(ns, 'fresh')).spec.holderIdentity, 'z');
});

t.test('an unconditional update on a stale guess lands on the stored object', async (t) => {
  const { stale } = await lease('unconditional');
  const out = await reg.update(ns, 'unconditional', (o) => ({ ...o, spec: { ...o.spec, renewTime: '2026-01-01T00:00:00.000000Z' } }), ctx(), '', stale);
  const stored = await reg.get(ns, 'unconditional');
  t.equal(stored.spec.holderIdentity, 'b', 'the other writer\'s change is kept');
  t.equal(stored.spec.leaseTransitions, 1);
  t.equal(stored.spec.renewTime, '2026-01-01T00:00:00.000000Z');
  t.equal(out.metadata.resourceVersion, stored.metadata.resourceVersion);
});

t.test('the resourceVersion sent is judged against storage, not the guess', async (t) => {
  const { stale, current } = await lease('conditional');
  const renewed = await reg.update(ns, 'conditional', () => ({ ...current, spec: { ...current.spec, renewTime: '2026-01-01T00:00:01.000000Z' } }), ctx(), '', stale);
  t.equal(renewed.spec.renewTime, '2026-01-01T00:00:01.000000Z', 'current in storage: written although the guess is older');
  const old = { ...current, spec: { ...current.spec, holderIdentity: 'c' } };
  await t.rejects(reg.update(ns, 'conditional', () => old, ctx(), '', stale), { code: 409 },
    'a resourceVersion storage has moved past is a conflict');
  t.equal((await reg.get(ns, 'conditional')).spec.holderIdentity, 'b');
});

t.test('a no-op against a stale guess is a change against storage', async (t) => {
  const { stale } = await lease('noop');
  // Sets what the guess already holds ('a'): nothing to write by the guess, a change by storage.
  const out = await reg.update(ns, 'noop', (o) => ({ ...o, spec: { ...o.spec, holderIdentity: 'a' } }), ctx(), '', stale);
  t.equal(out.spec.holderIdentity, 'a');
  t.equal((await reg.get(ns, 'noop')).spec.holderIdentity, 'a');
  t.equal(out.spec.leaseTransitions, 1);
});

t.test('a refusal judged on a stale guess is judged again on storage', async (t) => {
  const { stale } = await lease('refusal');
  let calls = 0;
  const out = await reg.update(ns, 'refusal', (o) => {
    calls++;
    if (o.spec.holderIdentity !== 'b') throw new StatusError(403, 'Forbidden', 'not the holder');
    return { ...o, spec: { ...o.spec, renewTime: '2026-01-01T00:00:02.000000Z' } };
  }, ctx(), '', stale);
  t.equal(calls, 2);
  t.equal(out.spec.renewTime, '2026-01-01T00:00:02.000000Z');
});

t.test('an object the guess has not seen yet is read from storage', async (t) => {
  await reg.create({ metadata: { name: 'unseen', namespace: ns }, spec: { holderIdentity: 'a' } }, ctx());
  const out = await reg.update(ns, 'unseen', (o) => ({ ...o, spec: { ...o.spec, holderIdentity: 'y' } }), ctx(), '', frozen(null));
  t.equal(out.spec.holderIdentity, 'y');
  await t.rejects(reg.update(ns, 'absent', (o) => o, ctx(), '', frozen(null)), { code: 404 });
});
