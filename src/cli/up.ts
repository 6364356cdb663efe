// `capstan up`: a whole cluster in the foreground — API server, controller-manager and
// scheduler (each talking to the API server over HTTPS with its own identity), and
// optionally hollow nodes (in a child process: hollow-nodes-process.ts). Writes <data-dir>/admin.kubeconfig before it says it is ready,
// and shuts down in order on SIGINT/SIGTERM.
// Every kubeconfig names an address reachable from where it is used: admin.kubeconfig (and
// the components') names --bind-address (127.0.0.1 for 0.0.0.0) in up's own network
// namespace; --extra-listen-fd's socket, which may live in another namespace, gets its own
// extra-listener.kubeconfig naming the socket's address.
// As kube-apiserver, up serves on 0.0.0.0 and advertises the host's address (the default
// route's interface; --advertise-address): the `kubernetes` Service's endpoint and
// cluster-info name it, so pods (through the Service) and joining nodes reach the server.
import { parseArgs } from 'node:util';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openStore } from '../storage/index.js';
import { authenticationFlags, authenticationOptions, signingKeyFile } from './authn-flags.js';
import { APIServer } from '../apiserver/server.js';
import { traceFlags, traceOptions } from './trace-flags.js';
import { http2Flags, http2Options } from './http2-flags.js';
import { encryptionFlag } from './encryption-flag.js';
import { admissionFlags, admissionFlagSpecs } from './admission-flags.js';
import { DEFAULT_AUTHORIZATION_MODE } from '../apiserver/authz/modes.js';
import { clientsetFromKubeconfig } from '../client/index.js';
import { ensureClusterInfo, ensureNodeBootstrapRBAC } from './node-bootstrap.js';
import { componentIdentities, ensureClusterPKI, writeAdminKubeconfig, writeComponentKubeconfig } from './pki-files.js';
import { parseDuration } from '../util/duration.js';
import { startControllerManager } from './controller-manager.js';
import { startScheduler } from './scheduler.js';
import { apiServerLabView } from '../labview/index.js';
import { untilSignal } from './signals.js';
import { httpsURL, inheritedListener, type InheritedListener } from './inherited-listener.js';
import { hostAddress, parseCidr } from '../util/index.js';

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      'data-dir': { type: 'string', default: '.capstan' },
      port: { type: 'string', default: '6443' },
      'bind-address': { type: 'string', default: '0.0.0.0' },
      'advertise-address': { type: 'string' },
      store: { type: 'string' },
      'no-node': { type: 'boolean', default: false },
      'node-name': { type: 'string' },
      'cgroup-root': { type: 'string' },
      'cni-bin-dir': { type: 'string' },
      'cni-conf-dir': { type: 'string' },
      'hollow-nodes': { type: 'string', default: '0' },
      'service-cluster-ip-range': { type: 'string', default: '10.96.0.0/12' },
      'cluster-cidr': { type: 'string', default: '10.244.0.0/16' },
      'node-monitor-grace-period': { type: 'string', default: '40s' },
      'pod-eviction-timeout': { type: 'string', default: '5m' },
      'extra-listen-fd': { type: 'string' },
      'service-account-token-max-ttl': { type: 'string' },
      'authorization-mode': { type: 'string', default: DEFAULT_AUTHORIZATION_MODE },
      ...admissionFlagSpecs,
      ...authenticationFlags,
      'encryption-provider-config': { type: 'string' },
      'metric-resolution': { type: 'string', default: '15s' },
      'horizontal-pod-autoscaler-sync-period': { type: 'string', default: '15s' },
      ...traceFlags,
      ...http2Flags,
    },
  });
  const hollowCount = Number(values['hollow-nodes']);
  const clusterBlocks = nodeBlocks(values['cluster-cidr']);
  if (hollowCount + (values['no-node'] ? 0 : 1) > clusterBlocks) {
    // Nodes beyond the last block never get a podCIDR, so their pods wait for ever.
    throw new Error(`capstan up: --cluster-cidr ${values['cluster-cidr']} holds ${clusterBlocks} node blocks (/24), too few for ${hollowCount} hollow nodes${values['no-node'] ? '' : ' and this node'}: give a larger one (10.0.0.0/12 holds 4,096, 10.0.0.0/8 65,536)`);
  }
  const dataDir = resolve(values['data-dir']);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const bind = values['bind-address'];
  const wildcard = bind === '0.0.0.0' || bind === '::';
  const local = wildcard ? '127.0.0.1' : bind;
  const advertise = values['advertise-address'] ?? (wildcard ? hostAddress() : bind);
  if (!advertise) process.stderr.write('capstan up: this host has no address but loopback: pods cannot reach the API server through the kubernetes Service\n');
  const extra: InheritedListener | undefined = values['extra-listen-fd'] !== undefined ? await inheritedListener(Number(values['extra-listen-fd'])) : undefined;
  const pki = ensureClusterPKI(dataDir, [local, ...(advertise ? [advertise] : []), ...(extra ? [extra.address] : [])], values['service-cluster-ip-range']);
  const encryption = encryptionFlag('capstan up', values['encryption-provider-config']);
  const admission = admissionFlags('capstan up', values);
  const storeURL = values.store ?? `sqlite://${resolve(dataDir, 'state.db')}`;
  const store = await openStore(storeURL);
  const server = new APIServer({
    store, bindAddress: bind, port: Number(values.port), advertiseAddress: advertise ?? local,
    tls: { certPem: pki.serving.certPem, keyPem: pki.serving.keyPem, caPem: pki.ca.certPem },
    kubeletClient: pki.kubeletClient, extraListeners: extra ? [extra.server] : [],
    tokenFile: pki.tokenFile, serviceClusterIPRange: values['service-cluster-ip-range'], ...authenticationOptions(values, dataDir), encryption,
    authorizationMode: values['authorization-mode'], metricResolutionMs: parseDuration(values['metric-resolution']),
    enableAdmissionPlugins: admission.enable, disableAdmissionPlugins: admission.disable, defaultTolerationSeconds: admission.tolerationSeconds,
    trace: traceOptions(values), ...http2Options(values),
  });
  const stops: (() => Promise<void>)[] = [];
  const shutdown = async () => {
    for (const stop of stops.reverse()) await stop().catch((e) => process.stderr.write(`capstan: shutdown: ${(e as Error).message}\n`));
  };
  let port: number;
  try {
    ({ port } = await server.start());
  } catch (e) {
    await store.close();
    extra?.server.close();
    throw new Error(`capstan up: cannot start the API server: ${(e as Error).message}`);
  }
  stops.push(() => store.close(), () => server.stop());
  server.addPathHandler(apiServerLabView(server));
  const url = httpsURL(local, port);
  try {
    const admin = clientsetFromKubeconfig(writeAdminKubeconfig(dataDir, pki, url), 'capstan-up');
    try {
      await ensureNodeBootstrapRBAC(admin);
      await ensureClusterInfo(admin, httpsURL(advertise ?? local, port), pki.ca.certPem);
    } finally { admin.close(); }
    const cmKubeconfig = writeComponentKubeconfig(dataDir, pki, url, 'controller-manager');
    const cm = await startControllerManager(['--kubeconfig', cmKubeconfig, '--cluster-cidr', values['cluster-cidr'], '--secure-port', '0',
      '--node-monitor-grace-period', values['node-monitor-grace-period'], '--pod-eviction-timeout', values['pod-eviction-timeout'],
      '--cluster-signing-cert-file', join(dataDir, 'pki', 'ca.crt'), '--cluster-signing-key-file', join(dataDir, 'pki', 'ca.key'),
      '--service-account-private-key-file', signingKeyFile(values, dataDir), '--root-ca-file', join(dataDir, 'pki', 'ca.crt'),
      '--horizontal-pod-autoscaler-sync-period', values['horizontal-pod-autoscaler-sync-period']]);
    stops.push(() => cm.stop());
    const schedKubeconfig = writeComponentKubeconfig(dataDir, pki, url, 'scheduler');
    const sched = await startScheduler(['--kubeconfig', schedKubeconfig, '--secure-port', '0']);
    stops.push(() => sched.stop());
    if (!values['no-node']) {
      const { startNode } = await import('./up-node.js');
      const node = await startNode({
        dataDir, kubeconfig: writeAdminKubeconfig(dataDir, pki, url), nodeName: values['node-name'], ca: pki.ca, clusterCIDR: values['cluster-cidr'],
        cniBinDir: values['cni-bin-dir'], cniConfDir: values['cni-conf-dir'], cgroupRoot: values['cgroup-root'],
        tokenMaxTTL: values['service-account-token-max-ttl'],
      });
      stops.push(() => node.stop());
    }
    if (hollowCount > 0) {
      // Their own identity, allowed to watch what they serve and to act as each of their
      // nodes; their own process (hollow-nodes-process.ts).
      const { ensureHollowNodesPolicy } = await import('../hollow/index.js');
      const { startHollowNodesProcess } = await import('./hollow-nodes-process.js');
      const admin = clientsetFromKubeconfig(writeAdminKubeconfig(dataDir, pki, url), 'capstan-up');
      try {
        await ensureHollowNodesPolicy(admin, componentIdentities['hollow-nodes'].commonName, Array.from({ length: hollowCount }, (_, i) => `hollow-${i}`));
      } finally { admin.close(); }
      const nodes = await startHollowNodesProcess(['--kubeconfig', writeComponentKubeconfig(dataDir, pki, url, 'hollow-nodes'),
        '--count', String(hollowCount), '--ca-dir', join(dataDir, 'pki')]);
      stops.push(() => nodes.stop());
    }
  } catch (e) {
    await shutdown();
    throw e;
  }
  const kubeconfig = writeAdminKubeconfig(dataDir, pki, url);
  const extraURL = extra && httpsURL(extra.address, extra.port);
  const extraKubeconfig = extraURL && writeAdminKubeconfig(dataDir, pki, extraURL, 'extra-listener.kubeconfig');
  process.stdout.write([
    `capstan is ready: API server ${url}${advertise && advertise !== local ? `, advertised as ${httpsURL(advertise, port)}` : ''} (store ${storeURL.split('?')[0]}), controller-manager and scheduler running`,
    ...(extraURL ? [`  also serving on the inherited socket ${extraURL}: ${extraKubeconfig}`] : []),
    `  export KUBECONFIG=${kubeconfig}`,
    '  kubectl get namespaces',
    '',
  ].join('\n'));
  const sig = await untilSignal();
  process.stdout.write(`capstan: ${sig}, shutting down\n`);
  await shutdown();
  process.stdout.write(await afterStop(dataDir, storeURL.startsWith('sqlite:'), !values['no-node']));
  return 0;
}

/** How many /24 node blocks (nodeipam's default mask) the cluster CIDR holds. */
function nodeBlocks(clusterCIDR: string): number {
  const c = parseCidr(clusterCIDR, 'mask');
  if (!c) throw new Error(`capstan up: --cluster-cidr "${clusterCIDR}" is not an IPv4 CIDR`);
  return c.prefix > 24 ? 0 : 2 ** (24 - c.prefix);
}

/** What stays after a stop, and how to remove it: said at every stop, since pods may outlive it. */
async function afterStop(dataDir: string, stateInDir: boolean, node: boolean): Promise<string> {
  const kept = stateInDir ? "The cluster's state stays" : "The cluster's certificates and kubeconfigs stay";
  const lines = [`capstan: stopped. ${kept} in ${dataDir}; \`capstan up --data-dir ${dataDir}\` carries on from it.`];
  if (node) {
    const { dataDirProcesses } = await import('../reset/index.js');
    const left = dataDirProcesses(dataDir);
    if (left.shims.length) {
      lines.push(`capstan: ${left.containers.length} pod process(es) under ${left.shims.length} containerd shim(s) keep running: as with a kubelet, pods outlive the node agent (Ctrl-C also stops containerd, and its shims stay). The next \`capstan up\` adopts them.`);
    }
    lines.push('capstan: the node\'s network (pod routes, vxlan.capstan, the capstan-proxy nft table) stays in place too.');
  }
  lines.push(`capstan: to stop and remove everything (pods, mounts, cgroups, network devices, nft tables and ${dataDir}): capstan reset --data-dir ${dataDir}`, '');
  return lines.join('\n');
}
