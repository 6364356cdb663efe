// Which volume a claim binds to (matching.ts, after upstream's findMatchingVolume), table-driven.
import t from 'tap';
import type { PersistentVolume, PersistentVolumeClaim } from '../../src/api/kinds.js';
import { findMatchingVolume } from '../../src/controllers/volume/index.js';

const pv = (name: string, size: string, o: Partial<NonNullable<PersistentVolume['spec']>> & { labels?: Record<string, string> } = {}): PersistentVolume => {
  const { labels, ...spec } = o;
  return { metadata: { name, labels }, spec: { capacity: { storage: size }, accessModes: ['ReadWriteOnce'], hostPath: { path: `/v/${name}` }, storageClassName: 'std', ...spec } };
};
const pvc = (o: Partial<NonNullable<PersistentVolumeClaim['spec']>> = {}): PersistentVolumeClaim => ({
  metadata: { name: 'c', namespace: 'ns', uid: 'u1' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } }, storageClassName: 'std', ...o },
});
const onNode = (n: string) => ({ required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [n] }] }] } });
const node = (n: string) => ({ metadata: { name: n, labels: { 'kubernetes.io/hostname': n } } });

const cases: { name: string; claim: PersistentVolumeClaim; volumes: PersistentVolume[]; opts?: Parameters<typeof findMatchingVolume>[2]; want: string | undefined }[] = [
  { name: 'the smallest that is big enough', claim: pvc(), volumes: [pv('a', '1Gi'), pv('b', '10Gi'), pv('c', '3Gi')], want: 'c' },
  { name: 'exactly the size asked for', claim: pvc(), volumes: [pv('a', '2048Mi'), pv('b', '3Gi')], want: 'a' },
  { name: 'nothing big enough', claim: pvc(), volumes: [pv('a', '1Gi')], want: undefined },
  { name: 'another class is not taken', claim: pvc(), volumes: [pv('a', '5Gi', { storageClassName: 'gold' })], want: undefined },
  { name: 'no class asks for volumes without one', claim: pvc({ storageClassName: '' }), volumes: [pv('a', '5Gi'), pv('b', '5Gi', { storageClassName: undefined })], want: 'b' },
  { name: 'access modes must all be offered', claim: pvc({ accessModes: ['ReadWriteOnce', 'ReadOnlyMany'] }), volumes: [pv('a', '5Gi'), pv('b', '9Gi', { accessModes: ['ReadOnlyMany', 'ReadWriteOnce'] })], want: 'b' },
  { name: 'volume mode must agree', claim: pvc({ volumeMode: 'Block' }), volumes: [pv('a', '5Gi'), pv('b', '9Gi', { volumeMode: 'Block' })], want: 'b' },
  { name: 'the selector must match labels', claim: pvc({ selector: { matchLabels: { tier: 'db' } } }), volumes: [pv('a', '3Gi'), pv('b', '9Gi', { labels: { tier: 'db' } })], want: 'b' },
  { name: 'a volume claimed by another is not taken', claim: pvc(), volumes: [pv('a', '3Gi', { claimRef: { namespace: 'ns', name: 'other', uid: 'u2' } }), pv('b', '9Gi')], want: 'b' },
  { name: 'a volume pre-bound to the claim wins over a smaller one', claim: pvc(), volumes: [pv('a', '3Gi'), pv('b', '9Gi', { claimRef: { namespace: 'ns', name: 'c' } })], want: 'b' },
  { name: 'pre-bound to an older claim of the same name (other uid): not taken', claim: pvc(), volumes: [pv('b', '9Gi', { claimRef: { namespace: 'ns', name: 'c', uid: 'old' } })], want: undefined },
  { name: 'waiting for a consumer: only a pre-bound volume', claim: pvc(), volumes: [pv('a', '3Gi')], opts: { delayed: true }, want: undefined },
  { name: 'a consumer chose n2: a volume on n2', claim: pvc(), volumes: [pv('a', '3Gi', { nodeAffinity: onNode('n1') }), pv('b', '9Gi', { nodeAffinity: onNode('n2') })], opts: { delayed: true, node: node('n2') }, want: 'b' },
  { name: 'a volume being deleted is not taken', claim: pvc(), volumes: [{ ...pv('a', '3Gi'), metadata: { name: 'a', deletionTimestamp: '2026-01-01T00:00:00Z' } }], want: undefined },
];

for (const c of cases) {
  t.test(c.name, async (t) => {
    t.equal(findMatchingVolume(c.claim, c.volumes, c.opts ?? { delayed: false })?.metadata.name, c.want);
  });
}
