import { execa } from 'execa';
import type { BatchOptions, NetlinkDriver, NetlinkOp, NetnsPath, OpResult, RouteScope } from './types.js';
import { codeFromMessage, parseAddrs, parseLinks, parseNeighs, parseRoutes } from './ip-parse.js';

/**
 * The fallback driver: each operation is one `ip` / `bridge` / `sysctl` process. Slower (a
 * process per op), but needs no native build, and it is the benchmarks' baseline. With
 * `ipBatch`, runs of consecutive `ip` changes go through one `ip -batch -` process instead
 * (it stops at the first failing line, which maps back to the op).
 */
export class IpCommandNetlink implements NetlinkDriver {
  readonly name: string;

  constructor(private readonly options: { ipBatch?: boolean } = {}) {
    this.name = options.ipBatch ? 'ip-batch' : 'ip';
  }

  async batch(netns: NetnsPath, ops: NetlinkOp[], options: BatchOptions = {}): Promise<OpResult[]> {
    const results: OpResult[] = [];
    let failed = false;
    for (let i = 0; i < ops.length; ) {
      if (failed && !options.continueOnError) {
        results.push({ status: 'skipped' });
        i++;
        continue;
      }
      let run = 1;
      if (this.options.ipBatch && !options.continueOnError) while (i + run < ops.length && batchable(ops[i + run]!) && batchable(ops[i]!)) run++;
      const chunk = run > 1 ? await this.runBatch(netns, ops.slice(i, i + run)) : [await this.run(netns, ops[i]!)];
      if (chunk.some((r) => r.status === 'error')) failed = true;
      results.push(...chunk);
      i += run;
    }
    return results;
  }

  private async runBatch(netns: NetnsPath, ops: NetlinkOp[]): Promise<OpResult[]> {
    const script = ops.map((op) => command(op)[1].map(quoteWord).join(' ')).join('\n') + '\n';
    const argv = inNetns(netns, 'ip', ['-batch', '-']);
    const res = await execa(argv[0]!, argv.slice(1), { reject: false, input: script });
    if (res.exitCode === 0) return ops.map(() => ({ status: 'ok' }));
    const stderr = String(res.stderr).trim();
    const line = /Command failed -:(\d+)/.exec(stderr);
    const failedAt = line ? Number(line[1]) - 1 : 0;
    const message = stderr.split('\n')[0] ?? stderr;
    return ops.map((_, k): OpResult =>
      k < failedAt ? { status: 'ok' } : k === failedAt ? { status: 'error', ...codeFromMessage(message), message } : { status: 'skipped' });
  }

  private async run(netns: NetnsPath, op: NetlinkOp): Promise<OpResult> {
    const [tool, args] = command(op);
    const argv = inNetns(netns, tool, args);
    const res = await execa(argv[0]!, argv.slice(1), { reject: false, stdin: 'ignore' });
    if (res.exitCode !== 0) {
      const message = String(res.stderr || res.stdout).trim();
      return { status: 'error', ...codeFromMessage(message), message };
    }
    const out = String(res.stdout);
    switch (op.op) {
      case 'linkList': return { status: 'ok', links: parseLinks(JSON.parse(out)) };
      case 'addrList': return { status: 'ok', addrs: parseAddrs(JSON.parse(out)) };
      case 'routeList': {
        const families: (4 | 6)[] = op.family ? [op.family] : [4, 6];
        if (families.length === 1) return { status: 'ok', routes: parseRoutes(JSON.parse(out), families[0]!) };
        const v6 = await execa(...split(inNetns(netns, 'ip', ['-j', '-6', 'route', 'show', 'table', 'all'])));
        return { status: 'ok', routes: [...parseRoutes(JSON.parse(out), 4), ...parseRoutes(JSON.parse(String(v6.stdout)), 6)] };
      }
      case 'neighList':
      case 'fdbList': return { status: 'ok', neighs: parseNeighs(JSON.parse(out || '[]')) };
      case 'sysctlRead': return { status: 'ok', value: out.trim() };
      default: return { status: 'ok' };
    }
  }
}

/** `ip` changes that produce no output can share one `ip -batch` process. */
function batchable(op: NetlinkOp): boolean {
  return command(op)[0] === 'ip' && !op.op.endsWith('List');
}

const quoteWord = (w: string): string => (/^[\w.:\/@%+=-]+$/.test(w) ? w : `"${w.replace(/(["\\])/g, '\\$1')}"`);

function split(argv: string[]): [string, string[]] {
  return [argv[0]!, argv.slice(1)];
}

function inNetns(netns: NetnsPath, tool: string, args: string[]): string[] {
  if (!netns) return [tool, ...args];
  const m = /^\/run\/netns\/([^/]+)$/.exec(netns);
  if (m && tool !== 'sysctl') return [tool, '-n', m[1]!, ...args];
  return ['nsenter', `--net=${netns}`, tool, ...args];
}

const opt = (cond: unknown, ...words: string[]): string[] => (cond !== undefined && cond !== false ? words : []);
const scopeWord = (s: RouteScope | undefined): string[] => (s === undefined ? [] : ['scope', String(s === 'universe' ? 'global' : s)]);

function command(op: NetlinkOp): [string, string[]] {
  switch (op.op) {
    case 'linkAddVeth':
      return ['ip', ['link', 'add', op.name, ...opt(op.mac, 'address', op.mac!), ...opt(op.mtu, 'mtu', String(op.mtu)),
        'type', 'veth', 'peer', 'name', op.peerName, ...opt(op.peerMac, 'address', op.peerMac!),
        ...opt(op.peerMtu ?? op.mtu, 'mtu', String(op.peerMtu ?? op.mtu)), ...opt(op.peerNetns, 'netns', op.peerNetns!)]];
    case 'linkAddVxlan':
      return ['ip', ['link', 'add', op.name, ...opt(op.mac, 'address', op.mac!), ...opt(op.mtu, 'mtu', String(op.mtu)),
        'type', 'vxlan', 'id', String(op.vni), ...opt(op.port, 'dstport', String(op.port)), ...opt(op.local, 'local', op.local!),
        ...opt(op.dev, 'dev', op.dev!), op.learning ? 'learning' : 'nolearning']];
    case 'linkSet':
      return ['ip', ['link', 'set', 'dev', op.name, ...(op.up === undefined ? [] : [op.up ? 'up' : 'down']),
        ...opt(op.mtu, 'mtu', String(op.mtu)), ...opt(op.mac, 'address', op.mac!), ...opt(op.newName, 'name', op.newName!),
        ...opt(op.netns, 'netns', op.netns!)]];
    case 'linkDel': return ['ip', ['link', 'del', 'dev', op.name]];
    case 'linkList': return ['ip', ['-j', '-d', 'link', 'show']];
    case 'addrAdd':
    case 'addrDel':
      return ['ip', ['addr', op.op === 'addrAdd' ? 'add' : 'del', op.address, 'dev', op.dev, ...scopeWord(op.scope),
        ...(op.op === 'addrAdd' && op.nodad ? ['nodad'] : [])]];
    case 'addrList': return ['ip', ['-j', ...(op.family ? [`-${op.family}`] : []), 'addr', 'show']];
    case 'routeAdd':
    case 'routeReplace':
    case 'routeDel': {
      const verb = { routeAdd: 'add', routeReplace: 'replace', routeDel: 'del' }[op.op];
      const fam = op.dst === 'default' && op.family === 6 && !op.via ? ['-6'] : [];
      // `ip` takes the type as a word before the destination.
      const type = op.type ? [op.type] : [];
      return ['ip', [...fam, 'route', verb, ...type, op.dst, ...opt(op.via, 'via', op.via!), ...opt(op.dev, 'dev', op.dev!),
        ...(op.onlink ? ['onlink'] : []), ...scopeWord(op.scope), ...opt(op.metric, 'metric', String(op.metric)),
        ...opt(op.table, 'table', String(op.table)), ...opt(op.protocol, 'proto', String(op.protocol))]];
    }
    case 'routeList': return ['ip', ['-j', `-${op.family ?? 4}`, 'route', 'show', 'table', 'all']];
    case 'neighAdd':
    case 'neighReplace':
    case 'neighDel': {
      const verb = { neighAdd: 'add', neighReplace: 'replace', neighDel: 'del' }[op.op];
      return ['ip', ['neigh', verb, op.address, ...opt(op.lladdr, 'lladdr', op.lladdr!), 'dev', op.dev,
        ...(op.op === 'neighDel' ? [] : ['nud', 'permanent'])]];
    }
    case 'neighList': return ['ip', ['-j', ...(op.family ? [`-${op.family}`] : []), 'neigh', 'show']];
    case 'fdbAdd':
    case 'fdbReplace':
    case 'fdbDel': {
      const verb = { fdbAdd: 'add', fdbReplace: 'replace', fdbDel: 'del' }[op.op];
      return ['bridge', ['fdb', verb, op.lladdr, 'dev', op.dev, ...opt(op.dst, 'dst', op.dst!), 'self',
        ...(op.op === 'fdbDel' ? [] : ['permanent'])]];
    }
    case 'fdbList': return ['bridge', ['-j', 'fdb', 'show']];
    case 'sysctlWrite': return ['sysctl', ['-q', '-w', `${op.path}=${op.value}`]];
    case 'sysctlRead': return ['sysctl', ['-n', op.path]];
  }
}
