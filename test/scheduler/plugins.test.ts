// Filter and score plugins, table-driven over NodeInfos built from fixtures.
import t, { type Test } from 'tap';
import type { KubeObject } from '../../src/api/object.js';
import { NodeInfo } from '../../src/scheduler/nodeinfo.js';
import { newPodInfo } from '../../src/scheduler/podinfo.js';
import { plugins } from '../../src/scheduler/index.js';
import { node, pod, type NodeOpts, type PodOpts } from './fixtures.js';

function nodeInfo(name: string, o: NodeOpts = {}, pods: KubeObject[] = []): NodeInfo {
  const n = new NodeInfo(name);
  n.setNode(node(name, o));
  for (const p of pods) n.addPod(newPodInfo(p));
  return n;
}

interface FilterCase { name: string; pod: PodOpts; node?: NodeOpts; existing?: KubeObject[]; want: string | string[] | null }

function runFilter(t: Test, plugin: plugins.FilterPlugin, cases: FilterCase[]) {
  for (const c of cases) t.same(plugin.filter(newPodInfo(pod('p', c.pod)), nodeInfo('n1', c.node, c.existing)), c.want, c.name);
}

const affinity = (terms: unknown[]) => ({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } });
const mismatch = "node(s) didn't match Pod's node affinity/selector";

t.test('NodeAffinity filter: nodeSelector and required terms', async (t) => {
  runFilter(t, plugins.nodeAffinityFilter, [
    { name: 'no constraints', pod: {}, want: null },
    { name: 'nodeSelector matches', pod: { nodeSelector: { disk: 'ssd' } }, node: { labels: { disk: 'ssd' } }, want: null },
    { name: 'nodeSelector differs', pod: { nodeSelector: { disk: 'ssd' } }, node: { labels: { disk: 'hdd' } }, want: mismatch },
    { name: 'In', pod: { affinity: affinity([{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }]) }, node: { labels: { zone: 'b' } }, want: null },
    { name: 'In, missing label', pod: { affinity: affinity([{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }]) }, want: mismatch },
    { name: 'NotIn, missing label passes', pod: { affinity: affinity([{ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }]) }, want: null },
    { name: 'NotIn, label in set', pod: { affinity: affinity([{ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }]) }, node: { labels: { zone: 'a' } }, want: mismatch },
    { name: 'Exists', pod: { affinity: affinity([{ matchExpressions: [{ key: 'gpu', operator: 'Exists' }] }]) }, node: { labels: { gpu: '' } }, want: null },
    { name: 'DoesNotExist', pod: { affinity: affinity([{ matchExpressions: [{ key: 'gpu', operator: 'DoesNotExist' }] }]) }, node: { labels: { gpu: '' } }, want: mismatch },
    { name: 'Gt', pod: { affinity: affinity([{ matchExpressions: [{ key: 'cores', operator: 'Gt', values: ['8'] }] }]) }, node: { labels: { cores: '16' } }, want: null },
    { name: 'Gt, not greater', pod: { affinity: affinity([{ matchExpressions: [{ key: 'cores', operator: 'Gt', values: ['8'] }] }]) }, node: { labels: { cores: '8' } }, want: mismatch },
    { name: 'Lt with a non-integer label', pod: { affinity: affinity([{ matchExpressions: [{ key: 'cores', operator: 'Lt', values: ['8'] }] }]) }, node: { labels: { cores: 'four' } }, want: mismatch },
    { name: 'matchFields metadata.name', pod: { affinity: affinity([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }]) }, want: null },
    { name: 'matchFields other name', pod: { affinity: affinity([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n2'] }] }]) }, want: mismatch },
    {
      name: 'terms are ORed', node: { labels: { zone: 'b' } }, want: null,
      pod: { affinity: affinity([{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }, { matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] }]) },
    },
    {
      name: 'requirements in a term are ANDed', node: { labels: { zone: 'b' } }, want: mismatch,
      pod: { affinity: affinity([{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }, { key: 'gpu', operator: 'Exists' }] }]) },
    },
    { name: 'an empty term matches nothing', pod: { affinity: affinity([{}]) }, want: mismatch },
    { name: 'nodeSelector and affinity must both hold', pod: { nodeSelector: { disk: 'ssd' }, affinity: affinity([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }]) }, want: mismatch },
  ]);
  t.match(newPodInfo(pod('p', { affinity: affinity([{ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['x'] }] }]) })).invalid, /integer/, 'a malformed term makes the pod invalid');
});

t.test('TaintToleration filter', async (t) => {
  const noSched = [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }];
  runFilter(t, plugins.taintTolerationFilter, [
    { name: 'untainted', pod: {}, want: null },
    { name: 'untolerated NoSchedule', pod: {}, node: { taints: noSched }, want: 'node(s) had untolerated taint {dedicated: db}' },
    { name: 'tolerated with Equal', pod: { tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' }] }, node: { taints: noSched }, want: null },
    { name: 'Equal with another value', pod: { tolerations: [{ key: 'dedicated', value: 'web' }] }, node: { taints: noSched }, want: 'node(s) had untolerated taint {dedicated: db}' },
    { name: 'Exists on the key', pod: { tolerations: [{ key: 'dedicated', operator: 'Exists' }] }, node: { taints: noSched }, want: null },
    { name: 'Exists without key tolerates everything', pod: { tolerations: [{ operator: 'Exists' }] }, node: { taints: noSched }, want: null },
    { name: 'effect must match', pod: { tolerations: [{ key: 'dedicated', operator: 'Exists', effect: 'NoExecute' }] }, node: { taints: noSched }, want: 'node(s) had untolerated taint {dedicated: db}' },
    { name: 'NoExecute filters', pod: {}, node: { taints: [{ key: 'k', effect: 'NoExecute' }] }, want: 'node(s) had untolerated taint {k: }' },
    { name: 'PreferNoSchedule does not filter', pod: {}, node: { taints: [{ key: 'k', effect: 'PreferNoSchedule' }] }, want: null },
    { name: 'NotReady node is tainted not-ready', pod: {}, node: { ready: 'False' }, want: 'node(s) had untolerated taint {node.kubernetes.io/not-ready: }' },
    { name: 'Unknown Ready is tainted unreachable', pod: {}, node: { ready: 'Unknown' }, want: 'node(s) had untolerated taint {node.kubernetes.io/unreachable: }' },
    { name: 'no Ready condition is unreachable', pod: {}, node: { ready: null }, want: 'node(s) had untolerated taint {node.kubernetes.io/unreachable: }' },
    { name: 'not-ready tolerated', pod: { tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists' }] }, node: { ready: 'False' }, want: null },
  ]);
});

t.test('NodeUnschedulable, NodeName, NodePorts filters', async (t) => {
  runFilter(t, plugins.nodeUnschedulable, [
    { name: 'schedulable', pod: {}, want: null },
    { name: 'cordoned', pod: {}, node: { unschedulable: true }, want: 'node(s) were unschedulable' },
    { name: 'cordoned but tolerated', pod: { tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] }, node: { unschedulable: true }, want: null },
  ]);
  runFilter(t, plugins.nodeName, [
    { name: 'no nodeName', pod: {}, want: null },
    { name: 'this node', pod: { nodeName: 'n1' }, want: null },
    { name: 'another node', pod: { nodeName: 'n2' }, want: "node(s) didn't match the requested node name" },
  ]);
  const taken = "node(s) didn't have free ports for the requested pod ports";
  runFilter(t, plugins.nodePorts, [
    { name: 'free', pod: { hostPort: 8080 }, existing: [pod('o', { hostPort: 9090 })], want: null },
    { name: 'same port, wildcard', pod: { hostPort: 8080 }, existing: [pod('o', { hostPort: 8080 })], want: taken },
    { name: 'same port, different IPs', pod: { hostPort: 8080, hostIP: '10.0.0.1' }, existing: [pod('o', { hostPort: 8080, hostIP: '10.0.0.2' })], want: null },
    { name: 'same port, same IP', pod: { hostPort: 8080, hostIP: '10.0.0.1' }, existing: [pod('o', { hostPort: 8080, hostIP: '10.0.0.1' })], want: taken },
    { name: 'existing wildcard vs specific IP', pod: { hostPort: 8080, hostIP: '10.0.0.1' }, existing: [pod('o', { hostPort: 8080 })], want: taken },
  ]);
  const n = nodeInfo('n1', {}, [pod('o', { hostPort: 8080 })]);
  n.removePod(newPodInfo(pod('o', { hostPort: 8080 })));
  t.equal(plugins.nodePorts.filter(newPodInfo(pod('p', { hostPort: 8080 })), n), null, 'a removed pod frees its port');
});

t.test('NodeResourcesFit filter', async (t) => {
  const big = (name: string) => pod(name, { cpu: '3', memory: '6Gi' });
  runFilter(t, plugins.nodeResourcesFit, [
    { name: 'fits an empty node', pod: { cpu: '1', memory: '1Gi' }, want: null },
    { name: 'fits exactly', pod: { cpu: '1', memory: '2Gi' }, existing: [big('o')], want: null },
    { name: 'insufficient cpu', pod: { cpu: '1001m' }, existing: [big('o')], want: ['Insufficient cpu'] },
    { name: 'insufficient cpu and memory', pod: { cpu: '2', memory: '3Gi' }, existing: [big('o')], want: ['Insufficient cpu', 'Insufficient memory'] },
    { name: 'pod count', pod: {}, node: { pods: '1' }, existing: [pod('o')], want: ['Too many pods'] },
    { name: 'ephemeral storage', pod: { ephemeral: '200Gi' }, want: ['Insufficient ephemeral-storage'] },
    { name: 'extended resource absent', pod: { extra: { 'example.com/gpu': '1' } }, want: ['Insufficient example.com/gpu'] },
    { name: 'extended resource present', pod: { extra: { 'example.com/gpu': '1' } }, node: { extra: { 'example.com/gpu': '2' } }, want: null },
    { name: 'no requests fit a full node', pod: {}, node: { cpu: '1' }, existing: [pod('o', { cpu: '1' })], want: null },
    { name: 'init container max counts', pod: { cpu: '100m', initContainers: [{ name: 'i', resources: { requests: { cpu: '5' } } }] }, want: ['Insufficient cpu'] },
  ]);
});

function scores(plugin: plugins.ScorePlugin, p: KubeObject, nodes: NodeInfo[], serviceSelectors: plugins.CycleState['serviceSelectors'] = []): number[] {
  const out = new Float64Array(nodes.length);
  plugin.score(newPodInfo(p), nodes, out, { serviceSelectors });
  return [...out].map((v) => Math.round(v * 100) / 100);
}

t.test('score plugins', async (t) => {
  const empty = nodeInfo('a'), half = nodeInfo('b', {}, [pod('o', { cpu: '2', memory: '4Gi' })]), cpuHeavy = nodeInfo('c', {}, [pod('o2', { cpu: '3', memory: '1Gi' })]);
  t.same(scores(plugins.leastAllocated, pod('p', { cpu: '1', memory: '2Gi' }), [empty, half]), [75, 25], 'LeastAllocated: (free cpu% + free mem%) / 2 after adding the pod');
  t.same(scores(plugins.leastAllocated, pod('p'), [empty]), [(97.5 + (1 - 200 / 8192) * 100) / 2].map((v) => Math.round(v * 100) / 100), 'LeastAllocated uses the non-zero defaults');
  t.same(scores(plugins.balancedAllocation, pod('p', { cpu: '1', memory: '2Gi' }), [half, cpuHeavy]), [100, 68.75], 'BalancedAllocation: 100 × (1 − |cpu% − mem%| / 2)');
  const soft = nodeInfo('s', { taints: [{ key: 'k', effect: 'PreferNoSchedule' }] }), softer = nodeInfo('t', { taints: [{ key: 'k', effect: 'PreferNoSchedule' }, { key: 'j', effect: 'PreferNoSchedule' }] });
  t.same(scores(plugins.taintTolerationScore, pod('p'), [empty, soft, softer]), [100, 50, 0], 'TaintToleration: fewer untolerated PreferNoSchedule taints is better');
  t.same(scores(plugins.taintTolerationScore, pod('p', { tolerations: [{ key: 'k', operator: 'Exists', effect: 'PreferNoSchedule' }] }), [empty, soft, softer]), [100, 100, 0], 'a tolerated PreferNoSchedule taint costs nothing');
  const preferred = { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [
    { weight: 10, preference: { matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }] } },
    { weight: 30, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] } },
  ] } };
  const ssd = nodeInfo('x', { labels: { disk: 'ssd' } }), both = nodeInfo('y', { labels: { disk: 'ssd', zone: 'a' } });
  t.same(scores(plugins.nodeAffinityScore, pod('p', { affinity: preferred }), [empty, ssd, both]), [0, 25, 100], 'NodeAffinity: summed weights, normalised');
});
