// What a KeyValueStore's children should be: pure functions of the store. Each child carries
// the hash of the spec it was made from, so a change the operator made (or a hand edit that
// changed the hash's inputs back) is found without comparing against server defaults.
import { createHash } from 'node:crypto';
import type { ConfigMap, Service, StatefulSet } from '../../src/api/kinds.js';
import { controllerReference } from '../../src/operator/index.js';
import { DEFAULT_IMAGE, PORT, keyValueStores, type KeyValueStore } from './types.js';

export const HASH_ANNOTATION = 'example.capstan.io/spec-hash';

export const names = (kvs: KeyValueStore) => {
  const n = kvs.metadata.name!;
  return { statefulSet: n, headless: `${n}-headless`, client: n, configMap: `${n}-data` };
};

const labels = (kvs: KeyValueStore) => ({ 'app.kubernetes.io/name': 'keyvaluestore', 'app.kubernetes.io/instance': kvs.metadata.name! });

const hash = (v: unknown) => createHash('sha256').update(JSON.stringify(v)).digest('hex').slice(0, 16);

function meta(kvs: KeyValueStore, name: string, spec: unknown) {
  return {
    name, namespace: kvs.metadata.namespace, labels: labels(kvs),
    annotations: { [HASH_ANNOTATION]: hash(spec) },
    ownerReferences: [controllerReference(keyValueStores, kvs)],
  };
}

export function desiredConfigMap(kvs: KeyValueStore): ConfigMap {
  const data = { ...(kvs.spec.data ?? {}) };
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(kvs, names(kvs).configMap, data), data };
}

export function desiredHeadlessService(kvs: KeyValueStore): Service {
  const spec = { clusterIP: 'None', selector: labels(kvs), ports: [{ name: 'http', port: PORT, targetPort: PORT }], publishNotReadyAddresses: true };
  return { apiVersion: 'v1', kind: 'Service', metadata: meta(kvs, names(kvs).headless, spec), spec };
}

export function desiredClientService(kvs: KeyValueStore): Service {
  const spec = { selector: labels(kvs), ports: [{ name: 'http', port: 80, targetPort: PORT }] };
  return { apiVersion: 'v1', kind: 'Service', metadata: meta(kvs, names(kvs).client, spec), spec };
}

export function desiredStatefulSet(kvs: KeyValueStore): StatefulSet {
  const n = names(kvs);
  const template = {
    metadata: { labels: labels(kvs) },
    spec: {
      containers: [{
        name: 'kv', image: kvs.spec.image ?? DEFAULT_IMAGE, imagePullPolicy: 'IfNotPresent',
        command: ['httpd', '-f', '-p', String(PORT), '-h', '/data'],
        ports: [{ name: 'http', containerPort: PORT }],
        readinessProbe: { tcpSocket: { port: PORT }, periodSeconds: 2 },
        volumeMounts: [{ name: 'data', mountPath: '/data', readOnly: true }],
      }],
      volumes: [{ name: 'data', configMap: { name: n.configMap } }],
    },
  };
  const replicas = kvs.spec.replicas ?? 1;
  const spec = { replicas, serviceName: n.headless, selector: { matchLabels: labels(kvs) }, template };
  // replicas is compared on its own: a hand-scaled StatefulSet is scaled back.
  const m = meta(kvs, n.statefulSet, { ...spec, replicas: undefined });
  return { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: m, spec };
}
