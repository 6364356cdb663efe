// The suites `capstan bench` knows, in the order a full run takes them: the name users type,
// the compiled module that exports it (dist/bench/<file>) and one line for `--list`.
export interface SuiteEntry { name: string; file: string; summary: string }

export const SUITES: SuiteEntry[] = [
  { name: 'apiserver', file: 'apiserver.js', summary: 'API server vs raw SQLite / etcd and the Store layer' },
  { name: 'scheduler', file: 'scheduler.js', summary: 'scheduler throughput, API and in-memory fake' },
  { name: 'storage-raw', file: 'storage-raw.js', summary: 'raw SQLite and etcd writes vs capstan stores' },
  { name: 'admission-policy', file: 'admission-policy.js', summary: 'ValidatingAdmissionPolicy cost per create' },
  { name: 'admission-webhook', file: 'admission-webhook.js', summary: 'admission webhook round trip on loopback' },
  { name: 'rbac', file: 'rbac.js', summary: 'get/list throughput under RBAC vs AlwaysAllow' },
  { name: 'connection-limits', file: 'connection-limits.js', summary: 'admin latency under idle unauthenticated connections' },
  { name: 'crd', file: 'crd.js', summary: 'CRD create → served / published, memory per CRD' },
  { name: 'controllers', file: 'controllers.js', summary: 'a Deployment to all Running on hollow nodes' },
  { name: 'job', file: 'job.js', summary: 'a Job beside a Deployment on hollow nodes' },
  { name: 'scale', file: 'scale.js', summary: 'hollow nodes held Ready, pods created → Running; API server RSS and CPU' },
  { name: 'control-plane-memory', file: 'control-plane-memory.js', summary: 'capstan up --no-node idle RSS and CPU vs a bare Node.js process' },
  { name: 'netlink', file: 'netlink-podsetup.js', summary: 'pod network setup: addon vs ip commands (root)' },
  { name: 'nft-services', file: 'nft-services.js', summary: 'service rules: addon vs nft -f (root)' },
  { name: 'proxy', file: 'proxy-sync.js', summary: 'proxy sync vs number of Services, every proxy mode (root)' },
  { name: 'network-programming', file: 'network-programming.js', summary: 'pod Ready → endpoint programmed on every node: hollow proxies + one real node (root)' },
  { name: 'networkpolicy', file: 'networkpolicy.js', summary: 'policy first-packet latency and change → enforced, nft vs iptables (root)' },
  { name: 'dns', file: 'dns.js', summary: 'cluster DNS vs dnsmasq under dnsperf (root)' },
  { name: 'cni', file: 'cni.js', summary: 'CNI ADD/DEL: capstan vs ptp + host-local (root)' },
  { name: 'cri-latency', file: 'cri-latency.js', summary: 'CRI call latencies against containerd (root, containerd)' },
  { name: 'pod-startup', file: 'pod-startup.js', summary: 'pods create → Running through the kubelet vs the CRI floor (root, containerd)' },
  { name: 'container-events', file: 'container-events.js', summary: 'container exits: task events vs resync (root, containerd)' },
  { name: 'pod-network', file: 'pod-network.js', summary: 'pod-to-pod iperf3 in a lab vs bare veth (root, containerd)' },
];

export function suiteEntry(name: string): SuiteEntry | undefined {
  return SUITES.find((s) => s.name === name || s.file === `${name}.js`);
}
