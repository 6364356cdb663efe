// The `capstan` command: one binary, a subcommand per component.
type Command = (argv: string[]) => Promise<number | void>;

const commands: Record<string, { summary: string; load: () => Promise<Command> }> = {
  apiserver: { summary: 'run the API server', load: async () => (await import('./apiserver.js')).run },
  up: { summary: 'run a whole cluster in the foreground', load: async () => (await import('./up.js')).run },
  reset: { summary: 'stop and remove everything `up` created for a data dir (pods, mounts, network, the dir)', load: async () => (await import('./reset.js')).run },
  'controller-manager': { summary: 'run the built-in controllers', load: async () => (await import('./controller-manager.js')).run },
  'hollow-nodes': { summary: 'run N hollow kubelets (no containers) for scale tests', load: async () => (await import('./hollow-nodes.js')).run },
  'network-agent': { summary: 'run the node network agent (CNI plugin backend, IPAM)', load: async () => (await import('./network-agent.js')).run },
  kubelet: { summary: 'run the node agent (pods on containerd over CRI)', load: async () => (await import('./kubelet.js')).run },
  scheduler: { summary: 'run the scheduler', load: async () => (await import('./scheduler.js')).run },
  dns: { summary: 'run the node\'s cluster DNS server', load: async () => (await import('./dns.js')).run },
  token: { summary: 'create a bootstrap token and print the join command (token create [--ttl 24h])', load: async () => (await import('./token.js')).run },
  join: { summary: 'join this machine to a cluster as a node with a bootstrap token', load: async () => (await import('./join.js')).run },
  node: { summary: 'run one node (network agent, containerd, kubelet) joining a cluster', load: async () => (await import('./node.js')).run },
  lab: { summary: 'a multi-node lab in network namespaces (up, down, kubectl)', load: async () => (await import('./lab.js')).run },
  proxy: { summary: 'run the service proxy (nftables or iptables)', load: async () => (await import('./proxy.js')).run },
  image: { summary: 'load an image archive into the node\'s containerd (image import FILE.tar)', load: async () => (await import('./image.js')).run },
  bench: { summary: 'run the benchmark suites and write results.json and report.html (bench compare A.json B.json)', load: async () => (await import('./bench.js')).run },
  trace: { summary: 'run a command (kubectl) through a recording proxy and show each request\'s API server stages (trace -- kubectl apply -f x.yaml)', load: async () => (await import('./trace/command.js')).run },
  install: { summary: 'install this release as a systemd service (install --role control-plane|node|all)', load: async () => (await import('./install.js')).run },
  uninstall: { summary: 'stop and remove everything `capstan install` created on this machine', load: async () => (await import('./uninstall.js')).run },
  policy: { summary: 'explain which network policies allow or deny a flow (policy explain SRC DST PORT)', load: async () => (await import('./policy.js')).run },
};

function usage(): string {
  const lines = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(20)} ${c.summary}`);
  return `usage: capstan <command> [flags]\n\ncommands:\n${lines.join('\n')}\n`;
}

export async function main(argv: string[]): Promise<number | void> {
  const [name, ...rest] = argv;
  if (!name || name === '-h' || name === '--help' || name === 'help') {
    process.stdout.write(usage());
    return 0;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`capstan: unknown command "${name}"\n${usage()}`);
    return 2;
  }
  return (await command.load())(rest);
}
