// The RBAC index follows storage through the watch cache: bindings and roles written to a real
// SQLite store are seen by the next decision once the cache has their event, and removals
// take access away again.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../../src/storage/index.js';
import { WatchCache } from '../../../src/storage/watch-cache.js';
import { PolicyIndex } from '../../../src/apiserver/authz/rbac/policy-index.js';
import { RBACAuthorizer } from '../../../src/apiserver/authz/rbac/authorizer.js';
import { PolicyFeed } from '../../../src/apiserver/authz/rbac/feed.js';
import type { Attributes } from '../../../src/apiserver/authz/index.js';

const dir = mkdtempSync(join(tmpdir(), 'capstan-rbac-feed-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const store = await openStore(`sqlite://${join(dir, 'state.db')}`);
t.teardown(() => store.close());
const json = (o: unknown) => Buffer.from(JSON.stringify(o));
const RBAC = 'rbac.authorization.k8s.io';

// One role exists before the cache starts: the feed must load it from the initial state.
await store.create('/registry/clusterroles/read-pods', json({ metadata: { name: 'read-pods' }, rules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }] }));
const cache = new WatchCache(store, '/registry/');
await cache.start();
t.teardown(() => cache.stop());
const index = new PolicyIndex();
const feed = new PolicyFeed(index, cache, (_resource, ev) => JSON.parse(ev.value.toString()));
feed.start();
t.teardown(() => feed.stop());
const rbac = new RBACAuthorizer(index);

const bob = { username: 'bob', groups: ['system:authenticated'] };
const list = (namespace: string): Attributes => ({ isResourceRequest: true, path: '', verb: 'list', group: '', resource: 'pods', subresource: '', namespace, name: '' });
const allowed = (ns: string) => rbac.decide(bob, list(ns)).decision === 'allow';
async function written(rev: number) {
  if (!await cache.waitUntil(rev, 5000)) throw new Error('watch cache did not catch up');
}

t.test('add, update, delete of bindings and roles through storage', async (t) => {
  t.notOk(allowed('a'));
  const key = '/registry/rolebindings/a/bob-reads';
  const binding = (user: string) => json({ metadata: { name: 'bob-reads', namespace: 'a' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'read-pods' }, subjects: [{ kind: 'User', apiGroup: RBAC, name: user }] });
  await written(await store.create(key, binding('bob')));
  t.ok(allowed('a'), 'RoleBinding created: allowed in its namespace');
  t.notOk(allowed('b'));
  const kv = await store.get(key);
  await written(await store.update(key, binding('carol'), kv!.modRevision));
  t.notOk(allowed('a'), 'subject changed: bob is out');
  t.ok(rbac.decide({ username: 'carol', groups: [] }, list('a')).decision === 'allow', 'carol is in');

  await written(await store.create('/registry/clusterrolebindings/everyone', json({ metadata: { name: 'everyone' }, roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: 'read-pods' }, subjects: [{ kind: 'Group', apiGroup: RBAC, name: 'system:authenticated' }] })));
  t.ok(allowed('b'), 'ClusterRoleBinding to a group: everywhere');
  const role = await store.get('/registry/clusterroles/read-pods');
  await written(await store.update('/registry/clusterroles/read-pods', json({ metadata: { name: 'read-pods' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] }), role!.modRevision));
  t.notOk(allowed('b'), 'the role lost list');
  const crb = await store.get('/registry/clusterrolebindings/everyone');
  await written((await store.delete('/registry/clusterrolebindings/everyone', crb!.modRevision)).revision);
  t.equal(index.bindingCount, 1, 'deleted binding gone from the index');
});
