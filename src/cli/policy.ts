// `capstan policy explain SRC DST PORT [--protocol TCP|UDP|SCTP]`: asks this node's network
// agent (its health port) which policies allow or refuse a flow, from the state it enforces.
// SRC and DST are pod addresses or `namespace/name`. The agent judges only the ends that live
// on its node: ask the source's node for egress, the destination's for ingress.
import { parseArgs } from 'node:util';
import type { NetworkAgent } from '../network/index.js';
import type { Explanation } from '../network/index.js';

const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];

/** The agent's side: GET /debug/policy/explain?src=&dst=&port=&protocol= */
export function explainQuery(agent: NetworkAgent, q: URLSearchParams): { status: number; body: unknown } {
  if (!agent.policy) return { status: 404, body: { message: 'network policy is not enforced by this agent' } };
  const protocol = (q.get('protocol') ?? 'TCP').toUpperCase();
  const port = Number(q.get('port'));
  if (!PROTOCOLS.includes(protocol) || !Number.isInteger(port) || port < 1 || port > 65535) {
    return { status: 400, body: { message: 'port must be 1-65535 and protocol TCP, UDP or SCTP' } };
  }
  const src = agent.policy.address(q.get('src') ?? ''), dst = agent.policy.address(q.get('dst') ?? '');
  if (!src || !dst) return { status: 404, body: { message: `unknown pod ${!src ? q.get('src') : q.get('dst')}` } };
  const e = agent.policy.explain(src, dst, port, protocol.toLowerCase() as 'tcp');
  return e ? { status: 200, body: e } : { status: 503, body: { message: 'network policy not synced yet' } };
}

function describe(e: Explanation): string {
  const lines = [`${e.flow.src} -> ${e.flow.dst} ${e.flow.protocol.toUpperCase()}/${e.flow.port}: ${e.allowed ? 'allowed' : 'denied'}`];
  for (const [dir, v] of [['egress', e.egress], ['ingress', e.ingress]] as const) {
    if (!v) { lines.push(`  ${dir}: not judged on this node`); continue; }
    const rule = (d: NonNullable<typeof v.decidedBy>) => `${d.kind} ${d.policy} rule ${d.rule} (${d.action})`;
    const passed = v.passedBy ? ` after ${rule(v.passedBy)}` : '';
    if (v.decidedBy) lines.push(`  ${dir} of ${v.pod}: ${v.allowed ? 'allowed' : 'denied'} by ${rule(v.decidedBy)}${passed}`);
    else if (!v.isolated) lines.push(`  ${dir} of ${v.pod}: not isolated (no policy selects it)${passed}`);
    else if (v.allowed) lines.push(`  ${dir} of ${v.pod}: allowed by ${v.allowedBy.join(', ')}${passed}`);
    else lines.push(`  ${dir} of ${v.pod}: denied; no rule of ${v.policies.join(', ')} allows it${passed}`);
  }
  return lines.join('\n') + '\n';
}

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv, strict: true, allowPositionals: true,
    options: { protocol: { type: 'string', default: 'TCP' }, agent: { type: 'string', default: 'http://127.0.0.1:9099' }, output: { type: 'string', short: 'o' } },
  });
  const [verb, src, dst, port] = positionals;
  if (verb !== 'explain' || !src || !dst || !port) {
    process.stderr.write('usage: capstan policy explain SRC DST PORT [--protocol TCP|UDP|SCTP] [--agent http://127.0.0.1:9099] [-o json]\n');
    return 2;
  }
  const url = new URL('/debug/policy/explain', values.agent);
  for (const [k, v] of Object.entries({ src, dst, port, protocol: values.protocol })) url.searchParams.set(k, v);
  let res: Response;
  try {
    res = await fetch(url);
  } catch (e) {
    process.stderr.write(`error: cannot reach the network agent at ${values.agent}: ${((e as Error).cause as Error | undefined)?.message ?? (e as Error).message}\n`);
    return 1;
  }
  const body = await res.json() as Explanation & { message?: string };
  if (!res.ok) {
    process.stderr.write(`error: ${body.message}\n`);
    return 1;
  }
  process.stdout.write(values.output === 'json' ? `${JSON.stringify(body, null, 2)}\n` : describe(body));
  return body.allowed ? 0 : 3;
}
