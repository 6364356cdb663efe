// `capstan network-agent`: the node's network agent. Installs the thin CNI plugin and its
// conflist where containerd looks, serves the plugin's calls on a unix socket (IPAM and
// netlink through the addon), and learns the node's pod CIDR from its Node object.
import { parseArgs } from 'node:util';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { CRIClient } from '../../cri/index.js';
import { clientsetFromKubeconfig, type Clientset } from '../client/index.js';
import { logger } from '../log/index.js';
import { createNetlink } from '../netlink/index.js';
import { createNftDriver } from '../nft/index.js';
import { DEFAULT_SOCKET, NetworkAgent } from '../network/index.js';
import { autoPodMTU } from '../network/mtu.js';
import { parseMode } from '../network/routes/index.js';
import { startHealthServer } from './health-server.js';
import { untilSignal } from './signals.js';
import { parseDuration } from '../util/index.js';
import { READY_MESSAGE } from './network-agent-supervisor.js';
import { bindFallbacks } from '../log/fallback.js';
import { explainQuery } from './policy.js';

export interface NetworkAgentHandle {
  agent: NetworkAgent;
  healthPort?: number;
  stop(): Promise<void>;
}

export async function startNetworkAgent(argv: string[]): Promise<NetworkAgentHandle> {
  const { values } = parseArgs({
    args: argv, strict: true,
    options: {
      kubeconfig: { type: 'string' },
      'node-name': { type: 'string' },
      'pod-cidr': { type: 'string' },
      'cni-bin-dir': { type: 'string', default: '/opt/cni/bin' },
      'cni-conf-dir': { type: 'string', default: '/etc/cni/net.d' },
      socket: { type: 'string', default: DEFAULT_SOCKET },
      'state-dir': { type: 'string', default: '/var/lib/capstan/network' },
      // auto: the default route's device, less the VXLAN header unless --encapsulation=Never
      mtu: { type: 'string', default: 'auto' },
      netns: { type: 'string' },
      'container-runtime-endpoint': { type: 'string' },
      'gc-interval': { type: 'string', default: '1m' },
      'gc-grace': { type: 'string', default: '2m' },
      'bind-address': { type: 'string', default: '127.0.0.1' },
      'health-port': { type: 'string', default: '9099' },
      encapsulation: { type: 'string', default: 'CrossSubnet' },
      // Made unreachable, so no pod address without a route follows the default route out.
      'cluster-cidr': { type: 'string' },
      // Calico's natOutgoing (on in its default pool): pods to outside --cluster-cidr are masqueraded.
      'nat-outgoing': { type: 'string', default: 'true' },
      // NetworkPolicy for this node's pods in `ip capstan-policy` (Calico enforces by default).
      'network-policy': { type: 'string', default: 'true' },
      'policy-resync-period': { type: 'string', default: '1m' },
      // How often the policy counters are published on the Node when they moved (0: never).
      'policy-counts-publish-period': { type: 'string', default: '5s' },
    },
  });
  if (!values['pod-cidr'] && !(values.kubeconfig && values['node-name'])) {
    throw new Error('--kubeconfig and --node-name are required (or --pod-cidr for a node without an API server)');
  }
  const encapsulation = parseMode(values.encapsulation);
  if (!encapsulation) throw new Error(`invalid --encapsulation ${values.encapsulation} (CrossSubnet, Always or Never)`);
  if (values['nat-outgoing'] !== 'true' && values['nat-outgoing'] !== 'false') throw new Error(`invalid --nat-outgoing ${values['nat-outgoing']} (true or false)`);
  if (values['network-policy'] !== 'true' && values['network-policy'] !== 'false') throw new Error(`invalid --network-policy ${values['network-policy']} (true or false)`);
  const netlink = createNetlink('addon');
  const mtu = values.mtu === 'auto' ? await autoPodMTU(netlink, values.netns ?? null, encapsulation) : Number(values.mtu);
  if (!Number.isInteger(mtu) || mtu < 576) throw new Error(`invalid --mtu ${values.mtu}`);
  const log = logger('network-agent', values['node-name'] ? { node: values['node-name'] } : {});
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  bindFallbacks('network-agent', registry, log);
  const clients: Clientset | undefined = values.kubeconfig ? clientsetFromKubeconfig(values.kubeconfig, 'capstan-network-agent') : undefined;
  const endpoint = values['container-runtime-endpoint']?.replace(/^unix:\/\//, '');
  const cri = endpoint ? new CRIClient({ socket: endpoint }) : undefined;
  const agent = new NetworkAgent({
    netlink,
    hostNetns: values.netns ?? null,
    stateDir: values['state-dir'],
    socket: values.socket,
    clients, nodeName: values['node-name'],
    podCIDR: values['pod-cidr'],
    cniBinDir: values['cni-bin-dir'] || undefined,
    cniConfDir: values['cni-conf-dir'] || undefined,
    mtu,
    listSandboxIDs: cri ? async () => (await cri.listPodSandbox()).map((s) => s.id) : undefined,
    gcIntervalMs: parseDuration(values['gc-interval']),
    gcGraceMs: parseDuration(values['gc-grace']),
    encapsulation,
    clusterCIDR: values['cluster-cidr'],
    natOutgoing: values['nat-outgoing'] === 'true',
    nft: createNftDriver('addon'),
    networkPolicy: values['network-policy'] === 'true',
    policyResyncMs: parseDuration(values['policy-resync-period']),
    policyCountsPublishMs: parseDuration(values['policy-counts-publish-period']),
    registry,
    log,
  });
  await agent.start();
  const port = Number(values['health-port']);
  const debug = { '/debug/policy/explain': (q: URLSearchParams) => explainQuery(agent, q) };
  const health = port >= 0 ? await startHealthServer({ address: values['bind-address'], port, registry, ready: () => agent.ready(), debug }) : undefined;
  return {
    agent, healthPort: health?.port,
    async stop() {
      await agent.stop();
      health?.server.close();
      cri?.close();
      clients?.close();
    },
  };
}

export async function run(argv: string[]): Promise<number> {
  const h = await startNetworkAgent(argv);
  process.stdout.write(`capstan network-agent running${h.healthPort !== undefined ? ` (healthz on :${h.healthPort})` : ''}\n`);
  // Supervised by `capstan node` (forked with an IPC channel): report readiness, and shut
  // down when the channel closes — the node process is gone, so is whoever restarts us.
  const supervised = !!process.send;
  if (supervised) process.send!(READY_MESSAGE);
  const why = await Promise.race([
    untilSignal(),
    ...(supervised ? [new Promise<string>((resolve) => process.once('disconnect', () => resolve('supervisor gone')))] : []),
  ]);
  process.stdout.write(`capstan network-agent: ${why}, shutting down\n`);
  await h.stop();
  if (process.connected) process.disconnect();
  return 0;
}
