// --authorization-mode and the union: first allow or deny wins, system:masters always allowed,
// no opinion from all is a 403 with upstream's message for resources, cluster scope and paths.
import t from 'tap';
import { buildAuthorizer, parseAuthorizationModes } from '../../../src/apiserver/authz/modes.js';
import { allow, deny, noOpinion, unionAuthorizer, type Attributes } from '../../../src/apiserver/authz/index.js';

const user = { username: 'x', groups: ['system:authenticated'] };
const master = { username: 'root', groups: ['system:masters'] };
const pods: Attributes = { isResourceRequest: true, path: '', verb: 'list', group: '', resource: 'pods', subresource: '', namespace: 'y', name: '' };

t.test('parsing', async (t) => {
  t.strictSame(parseAuthorizationModes('Node,RBAC'), ['Node', 'RBAC']);
  t.throws(() => parseAuthorizationModes('ABAC'), /unknown mode "ABAC"/);
  t.throws(() => parseAuthorizationModes('RBAC,RBAC'), /given twice/);
  t.throws(() => parseAuthorizationModes(''), /at least one/);
  t.throws(() => buildAuthorizer(['Node', 'RBAC'], { RBAC: { decide: () => noOpinion() } }), /Node authorizer not available/);
});

t.test('built-in modes and the privileged group', async (t) => {
  t.equal(await buildAuthorizer(['AlwaysAllow'], {}).authorize(user, pods), null);
  t.equal(await buildAuthorizer(['AlwaysDeny'], {}).authorize(user, pods), 'pods is forbidden: User "x" cannot list resource "pods" in API group "" in the namespace "y": Everything is forbidden.');
  t.equal(await buildAuthorizer(['AlwaysDeny'], {}).authorize(master, pods), null, 'system:masters before every mode');
});

t.test('union order and messages', async (t) => {
  const seen: string[] = [];
  const a = unionAuthorizer([
    { decide: () => { seen.push('a'); return noOpinion(); } },
    { decide: (_u, attrs) => { seen.push('b'); return attrs.verb === 'delete' ? deny('no deletes') : noOpinion(); } },
    { decide: () => { seen.push('c'); return allow(); } },
  ]);
  t.equal(await a.authorize(user, pods), null);
  t.strictSame(seen, ['a', 'b', 'c']);
  seen.length = 0;
  t.equal(await a.authorize(user, { ...pods, verb: 'delete', name: 'p' }), 'pods "p" is forbidden: User "x" cannot delete resource "pods" in API group "" in the namespace "y": no deletes');
  t.strictSame(seen, ['a', 'b'], 'a deny stops the chain');
  const none = unionAuthorizer([{ decide: () => noOpinion() }]);
  t.equal(await none.authorize(user, { ...pods, group: 'apps', resource: 'deployments', subresource: 'scale', namespace: '', name: 'd', verb: 'update' }),
    'deployments.apps "d" is forbidden: User "x" cannot update resource "deployments/scale" in API group "apps" at the cluster scope');
  t.equal(await none.authorize(user, { ...pods, isResourceRequest: false, path: '/metrics', verb: 'get', resource: '', namespace: '' }),
    'forbidden: User "x" cannot get path "/metrics"');
});
