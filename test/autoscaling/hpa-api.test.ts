// HorizontalPodAutoscaler as kubectl sees it: `kubectl autoscale` (autoscaling/v1, sent as
// protobuf by kubectl 1.32), `kubectl get hpa` columns, v1 ⇄ v2 conversion of the CPU target,
// defaults, validation errors with upstream's messages, and discovery of metrics.k8s.io.
import t from 'tap';
import { startAPIServer } from '../helpers/api.js';
import { kubectlFor } from '../helpers/kubectl.js';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';

t.test('HorizontalPodAutoscaler through kubectl', async (t) => {
  const api = await startAPIServer(t);
  const k = kubectlFor(t, writeAdminKubeconfig(api.dir, api.pki, `https://127.0.0.1:${api.port}`));
  await k.ok(['create', 'deployment', 'web', '--image=busybox', '--replicas=2']);

  await k.ok(['autoscale', 'deployment', 'web', '--cpu-percent=50', '--min=1', '--max=5']);
  const v2 = JSON.parse(await k.ok(['get', '--raw', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/web']));
  t.same(v2.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' });
  t.equal(v2.spec.minReplicas, 1);
  t.equal(v2.spec.maxReplicas, 5);
  t.same(v2.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }], 'v1 target converted to a v2 Resource metric');
  const v1 = JSON.parse(await k.ok(['get', '--raw', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/web']));
  t.equal(v1.spec.targetCPUUtilizationPercentage, 50, 'and back');
  t.equal(v1.metadata.annotations?.['autoscaling.alpha.kubernetes.io/metrics'], undefined, 'nothing else to carry');

  const table = await k.ok(['get', 'hpa']);
  t.match(table, /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE\n/);
  t.match(table, /\nweb\s+Deployment\/web\s+cpu: <unknown>\/50%\s+1\s+5\s+0\s+\S+\n/);

  t.test('a v2 object with memory and behaviour survives a v1 round trip', async (t) => {
    await k.ok(['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'mem' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 3,
        metrics: [{ type: 'Resource', resource: { name: 'memory', target: { type: 'Utilization', averageUtilization: 70 } } }],
        behavior: { scaleDown: { policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] } },
      },
    }));
    const got = JSON.parse(await k.ok(['get', '--raw', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/mem']));
    t.equal(got.spec.minReplicas, 1, 'minReplicas defaults to 1');
    t.same(got.spec.behavior.scaleDown, { stabilizationWindowSeconds: 300, selectPolicy: 'Max', policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }] }, 'scaleDown keeps its policy, gains the defaults');
    t.same(got.spec.behavior.scaleUp.policies, [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }]);
    const v1 = JSON.parse(await k.ok(['get', '--raw', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/mem']));
    t.equal(v1.spec.targetCPUUtilizationPercentage, undefined);
    t.ok(v1.metadata.annotations['autoscaling.alpha.kubernetes.io/metrics'], 'the memory metric travels in an annotation');
    // A v1 update (label) must not lose the v2-only fields.
    await k.ok(['label', 'hpa.v1.autoscaling', 'mem', 'x=y']);
    const after = JSON.parse(await k.ok(['get', '--raw', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/mem']));
    t.same(after.spec.metrics, got.spec.metrics);
    t.same(after.spec.behavior, got.spec.behavior);
    t.equal(after.metadata.annotations?.['autoscaling.alpha.kubernetes.io/metrics'], undefined);
  });

  t.test('validation', async (t) => {
    const bad = await k(['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'bad' },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, minReplicas: 3, maxReplicas: 2 },
    }));
    t.not(bad.code, 0);
    t.match(bad.stderr, 'spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`');
    const r = await k(['apply', '-f', '-'], JSON.stringify({
      apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'bad2' },
      spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 3, behavior: { scaleUp: { policies: [{ type: 'Pods', value: 0, periodSeconds: 15 }] } } },
    }));
    t.not(r.code, 0);
    t.match(r.stderr, 'spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero');
  });

  t.test('metrics.k8s.io is discovered', async (t) => {
    const resources = await k.ok(['api-resources', '--api-group=metrics.k8s.io', '-o', 'wide']);
    t.match(resources, /nodes\s+metrics\.k8s\.io\/v1beta1\s+false\s+NodeMetrics\s+get,list/);
    t.match(resources, /pods\s+metrics\.k8s\.io\/v1beta1\s+true\s+PodMetrics\s+get,list/);
    const hpa = await k.ok(['api-resources', '--api-group=autoscaling']);
    t.match(hpa, /horizontalpodautoscalers\s+hpa\s+autoscaling\/v2\s+true\s+HorizontalPodAutoscaler/);
  });
});
