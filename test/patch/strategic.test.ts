import t from 'tap';
import { applyPatch } from '../../src/apiserver/patch/index.js';
import { deploymentSchema } from './fixtures.js';

const smp = (original: unknown, patch: unknown) => applyPatch('strategic', original, patch, deploymentSchema);

const live = () => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web', tier: 'fe' }, finalizers: ['a', 'b'] },
  spec: {
    replicas: 2,
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [
          { name: 'web', image: 'nginx:1.0', imagePullPolicy: 'IfNotPresent', args: ['-v'], ports: [{ containerPort: 80, protocol: 'TCP' }] },
          { name: 'sidecar', image: 'envoy', imagePullPolicy: 'Always' },
        ],
      },
    },
  },
});

const containersOf = (o: any) => o.spec.template.spec.containers;
const namesOf = (o: any) => containersOf(o).map((c: any) => c.name);

t.test('client-side apply patches as kubectl sends them', async (t) => {
  t.test('changed image with $setElementOrder keeps order and server-set fields', async (t) => {
    const r = smp(live(), {
      spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'web' }, { name: 'sidecar' }], containers: [{ image: 'nginx:1.1', name: 'web' }] } } },
    });
    t.same(containersOf(r)[0], { name: 'web', image: 'nginx:1.1', imagePullPolicy: 'IfNotPresent', args: ['-v'], ports: [{ containerPort: 80, protocol: 'TCP' }] });
    t.same(containersOf(r)[1], live().spec.template.spec.containers[1]);
  });

  t.test('$patch: delete removes a container by name', async (t) => {
    const r = smp(live(), {
      spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'web' }], containers: [{ $patch: 'delete', name: 'sidecar' }] } } },
    });
    t.same(namesOf(r), ['web']);
  });

  t.test('null deletes a label', async (t) => {
    const r = smp(live(), { metadata: { labels: { tier: null } } }) as any;
    t.same(r.metadata.labels, { app: 'web' });
  });

  t.test('$setElementOrder reorders and adds', async (t) => {
    const r = smp(live(), {
      spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'cache' }, { name: 'web' }], containers: [{ name: 'cache', image: 'redis' }] } } },
    });
    t.same(namesOf(r), ['sidecar', 'cache', 'web']);
    t.same(containersOf(r)[1], { name: 'cache', image: 'redis' });
  });

  t.test('a nested merge-keyed list merges inside its merged element', async (t) => {
    const r = smp(live(), { spec: { template: { spec: { containers: [{ name: 'web', ports: [{ containerPort: 443, protocol: 'TCP' }] }] } } } });
    t.same(containersOf(r)[0].ports.map((p: any) => p.containerPort).sort(), [443, 80]);
    t.equal(containersOf(r)[0].image, 'nginx:1.0');
  });

  t.test('lists without a merge strategy are replaced', async (t) => {
    const r = smp(live(), { spec: { template: { spec: { containers: [{ name: 'web', args: ['-q'] }] } } } });
    t.same(containersOf(r).find((c: any) => c.name === 'web').args, ['-q']);
  });
});

t.test('element order follows Kubernetes', async (t) => {
  const cases: { name: string; original: unknown[]; patch: Record<string, unknown>; want: unknown[] }[] = [
    {
      // strategicpatch test "add an item in a list of primitives and preserve order"
      name: 'primitive list: server-only items are interleaved by live order',
      original: [1, 4, 2],
      patch: { '$setElementOrder/intList': [3, 1, 2], intList: [3] },
      want: [3, 1, 4, 2],
    },
    {
      name: 'primitive list: union of live and patch',
      original: [1, 2],
      patch: { intList: [2, 3] },
      want: [1, 2, 3],
    },
    {
      name: 'primitive list: new items come first without $setElementOrder',
      original: [1, 2],
      patch: { intList: [3] },
      want: [3, 1, 2],
    },
    {
      name: '$deleteFromPrimitiveList with $setElementOrder',
      original: [1, 2, 3],
      patch: { '$setElementOrder/intList': [2, 1], '$deleteFromPrimitiveList/intList': [3] },
      want: [2, 1],
    },
  ];
  for (const c of cases) {
    const r = smp({ spec: { intList: c.original } }, { spec: c.patch }) as any;
    t.same(r.spec.intList, c.want, c.name);
  }

  // strategicpatch test "add an item in a list and preserve order"
  const r = smp(
    { spec: { template: { spec: { containers: [{ name: '1', image: 'a' }, { name: '2', image: 'b', args: ['x'] }] } } } },
    { spec: { template: { spec: { '$setElementOrder/containers': [{ name: '3' }, { name: '1' }, { name: '2' }], containers: [{ name: '3', image: 'c' }] } } } },
  );
  t.same(containersOf(r), [{ name: '3', image: 'c' }, { name: '1', image: 'a' }, { name: '2', image: 'b', args: ['x'] }]);

  const prepended = smp(live(), { spec: { template: { spec: { containers: [{ name: 'cache', image: 'redis' }] } } } });
  t.same(namesOf(prepended), ['cache', 'web', 'sidecar'], 'a new element lands before server-only ones, as upstream');
});

t.test('directives', async (t) => {
  const cases: { name: string; patch: unknown; check: (r: any) => unknown; want: unknown }[] = [
    { name: '$patch: replace on a list', patch: { spec: { template: { spec: { containers: [{ name: 'only', image: 'x' }, { $patch: 'replace' }] } } } }, check: namesOf, want: ['only'] },
    { name: '$patch: replace on a map', patch: { metadata: { labels: { $patch: 'replace', new: '1' } } }, check: (r) => r.metadata.labels, want: { new: '1' } },
    { name: '$patch: delete on a map empties it', patch: { metadata: { labels: { $patch: 'delete' } } }, check: (r) => r.metadata.labels, want: {} },
    { name: '$patch: merge is the default merge', patch: { metadata: { labels: { $patch: 'merge', new: '1' } } }, check: (r) => r.metadata.labels, want: { app: 'web', tier: 'fe', new: '1' } },
    { name: 'union-merge of a set', patch: { metadata: { finalizers: ['b', 'c'] } }, check: (r) => r.metadata.finalizers, want: ['a', 'b', 'c'] },
    { name: '$deleteFromPrimitiveList', patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }, check: (r) => r.metadata.finalizers, want: ['b'] },
    { name: '$deleteFromPrimitiveList on a missing list adds nothing', patch: { metadata: { '$deleteFromPrimitiveList/nope': ['a'] } }, check: (r) => 'nope' in r.metadata, want: false },
    {
      name: '$retainKeys clears unlisted keys',
      patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: null } } },
      check: (r) => r.spec.strategy,
      want: { type: 'Recreate' },
    },
    {
      name: '$retainKeys keeps listed keys the patch does not mention',
      patch: { spec: { strategy: { $retainKeys: ['type', 'rollingUpdate'], type: 'RollingUpdate' } } },
      check: (r) => r.spec.strategy.rollingUpdate,
      want: { maxSurge: 1, maxUnavailable: 0 },
    },
    {
      name: 'a new map gets its directives carried out, not stored',
      patch: { metadata: { annotations: { $patch: 'merge', a: '1', b: null } } },
      check: (r) => r.metadata.annotations,
      want: { a: '1' },
    },
    {
      name: 'a new list drops $patch elements',
      patch: { spec: { template: { spec: { containers: [{ name: 'web', ports: [{ containerPort: 1, protocol: 'UDP' }, { $patch: 'replace' }] }] } } } },
      check: (r) => containersOf(r)[0].ports,
      want: [{ containerPort: 1, protocol: 'UDP' }],
    },
  ];
  for (const c of cases) t.same(c.check(smp(live(), c.patch)), c.want, c.name);
});

t.test('fields without a schema merge as JSON merge patch', async (t) => {
  const original = { spec: { config: { keep: 1, drop: 2, list: [1, 2], nested: { a: 1 } } }, extra: { x: [1], y: 1 } };
  const r = smp(original, { spec: { config: { drop: null, list: [3], nested: { b: 2 } } }, extra: { x: [2], y: null } }) as any;
  t.same(r.spec.config, { keep: 1, list: [3], nested: { a: 1, b: 2 } });
  t.same(r.extra, { x: [2] });
});

t.test('inputs are never mutated', async (t) => {
  const original = live();
  const patch = { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'web' }], containers: [{ name: 'web', image: 'x' }] } } }, metadata: { labels: { tier: null } } };
  const patchCopy = structuredClone(patch);
  const r = smp(original, patch) as any;
  t.same(original, live());
  t.same(patch, patchCopy);
  r.spec.template.spec.containers[1].args.push('mutated');
  t.same(original, live(), 'result shares nothing with the original');
});

t.test('malformed strategic merge patches are 400 PatchErrors', async (t) => {
  const cases: { name: string; patch: unknown; message: RegExp }[] = [
    { name: 'not an object', patch: [1], message: /must be a JSON object/ },
    { name: 'unknown $ directive', patch: { spec: { $frobnicate: 1 } }, message: /unknown strategic merge patch directive "\$frobnicate"/ },
    { name: 'unknown $patch value', patch: { metadata: { labels: { $patch: 'explode' } } }, message: /unknown \$patch directive "explode"/ },
    { name: 'unknown $patch in a list', patch: { spec: { template: { spec: { containers: [{ name: 'web', $patch: 'explode' }] } } } }, message: /unknown \$patch directive "explode" in a list/ },
    { name: 'element without merge key', patch: { spec: { template: { spec: { containers: [{ image: 'x' }] } } } }, message: /has no merge key "name"/ },
    { name: '$patch: delete without merge key', patch: { spec: { template: { spec: { containers: [{ $patch: 'delete' }] } } } }, message: /has no merge key/ },
    {
      name: '$setElementOrder missing a patched element',
      patch: { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'web' }], containers: [{ name: 'sidecar', image: 'x' }] } } } },
      message: /does not match \$setElementOrder/,
    },
    { name: '$setElementOrder not a list', patch: { spec: { '$setElementOrder/intList': 3 } }, message: /must be a list/ },
    { name: '$deleteFromPrimitiveList not a list', patch: { metadata: { '$deleteFromPrimitiveList/finalizers': 'a' } }, message: /must be a list/ },
    { name: '$retainKeys not a list', patch: { spec: { strategy: { $retainKeys: 'type' } } }, message: /\$retainKeys must be a list/ },
    { name: 'patched key missing from $retainKeys', patch: { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: { maxSurge: 2 } } } }, message: /not listed in \$retainKeys/ },
  ];
  for (const c of cases) {
    t.throws(() => smp(live(), c.patch), { name: 'PatchError', code: 400, message: c.message }, c.name);
  }
  t.throws(() => smp({ spec: { intList: [1] } }, { spec: { intList: [{ a: 1 }] } }), { name: 'PatchError', code: 400, message: /mismatched types/ }, 'mixed list element types');
  t.throws(() => smp({ spec: { intList: [[1]] } }, { spec: { intList: [[2]] } }), { name: 'PatchError', code: 422 }, 'lists of lists are 422');
});
