// The zone built from informers on a FakeClientset: the same objects arriving in different
// orders give the same answers; and the pure pieces (names, resolver, message encoding).
import t from 'tap';
import type { KubeObject } from '../../src/api/object.js';
import { FakeClientset, SharedInformerFactory, resources, type ResourceType } from '../../src/client/index.js';
import { encodeResponse, parseQuery } from '../../src/dns/message.js';
import { dashed, expandIPv6, reverseName, undash } from '../../src/dns/names.js';
import { Resolver } from '../../src/dns/resolver.js';
import { ZoneSources } from '../../src/dns/sources.js';
import { Zone } from '../../src/dns/zone.js';
import * as dnsPacket from 'dns-packet';

const D = 'cluster.local';
type Step = { type: ResourceType; obj: KubeObject; op?: 'delete' };

const svc = (name: string, spec: Record<string, unknown>): KubeObject => ({ metadata: { name, namespace: 'ns1' }, spec });
const slice = (name: string, service: string, endpoints: unknown[], ports = [{ name: 'p', port: 9000, protocol: 'TCP' }]): KubeObject => ({
  metadata: { name, namespace: 'ns1', labels: { 'kubernetes.io/service-name': service } }, addressType: 'IPv4', ports, endpoints,
});
const pod = (name: string, ip: string, spec: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name, namespace: 'ns1' }, spec: { containers: [{ name: 'c', image: 'x' }], ...spec }, status: { phase: 'Running', podIP: ip, podIPs: [{ ip }] },
});

const steps: Step[] = [
  { type: resources.services, obj: svc('a', { clusterIP: '10.96.0.20', clusterIPs: ['10.96.0.20', 'fd00::20'], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }) },
  { type: resources.services, obj: svc('h', { clusterIP: 'None', ports: [{ name: 'p', port: 9000 }] }) },
  { type: resources.endpointslices, obj: slice('h-1', 'h', [{ addresses: ['10.1.0.1'], conditions: { ready: true }, targetRef: { kind: 'Pod', name: 'h-0', namespace: 'ns1' } }]) },
  { type: resources.endpointslices, obj: slice('h-2', 'h', [{ addresses: ['10.1.0.2'], hostname: 'two', conditions: { ready: true } }, { addresses: ['10.1.0.3'], conditions: { ready: false } }]) },
  { type: resources.pods, obj: pod('h-0', '10.1.0.1', { hostname: 'zero', subdomain: 'h' }) },
  { type: resources.pods, obj: pod('lonely', '10.1.0.50') },
  { type: resources.services, obj: svc('x', { type: 'ExternalName', externalName: 'a.ns1.svc.cluster.local' }) },
];

const questions: [string, string][] = [
  [`a.ns1.svc.${D}`, 'A'], [`a.ns1.svc.${D}`, 'AAAA'], [`_http._tcp.a.ns1.svc.${D}`, 'SRV'], [reverseName('10.96.0.20')!, 'PTR'], [reverseName('fd00::20')!, 'PTR'],
  [`h.ns1.svc.${D}`, 'A'], [`zero.h.ns1.svc.${D}`, 'A'], [`two.h.ns1.svc.${D}`, 'A'], [`_p._tcp.h.ns1.svc.${D}`, 'SRV'],
  [reverseName('10.1.0.1')!, 'PTR'], [reverseName('10.1.0.50')!, 'PTR'], [`x.ns1.svc.${D}`, 'A'], [`10-1-0-3.h.ns1.svc.${D}`, 'A'],
  [`ns1.svc.${D}`, 'A'], [`nope.ns1.svc.${D}`, 'A'], [`10-1-0-50.ns1.pod.${D}`, 'A'], [`10-1-0-51.ns1.pod.${D}`, 'A'],
];

async function build(order: Step[], pods: 'insecure' | 'verified' = 'verified') {
  const fake = new FakeClientset();
  const factory = new SharedInformerFactory(fake);
  const zone = new Zone(D);
  const sources = new ZoneSources(factory, zone, { domain: D, ttl: 30, podRecords: true });
  factory.start();
  await factory.waitForCacheSync();
  for (const s of order) {
    const api = fake.resource(s.type);
    if (s.op === 'delete') await api.delete('ns1', s.obj.metadata.name!);
    else await api.create('ns1', structuredClone(s.obj));
  }
  await new Promise((r) => setTimeout(r, 50));
  sources.flush();
  const resolver = new Resolver(zone, { pods, ttl: 30 });
  const answers = questions.map(([n, ty]) => {
    const r = resolver.resolve(n, ty, 'IN');
    return `${n} ${ty} ${r.rcode} ${r.answers.map((a) => `${a.type}=${JSON.stringify(a.data)}`).sort().join(',')} +${r.additionals.length}`;
  });
  await factory.stop();
  return { answers, zone, resolver };
}

t.test('the same objects in any order give the same answers', async (t) => {
  const orders = [steps, [...steps].reverse(), [steps[4], steps[2], steps[6], steps[0], steps[3], steps[5], steps[1]], [steps[3], steps[1], steps[5], steps[2], steps[4], steps[6], steps[0]]];
  const results = [];
  for (const o of orders) results.push((await build(o)).answers);
  for (let i = 1; i < results.length; i++) t.same(results[i], results[0], `order ${i}`);
  const a = results[0];
  t.match(a[0], /NOERROR A="10.96.0.20"/);
  t.match(a[1], /NOERROR AAAA="fd00::20"/, 'dual-stack clusterIPs: AAAA too');
  t.match(a[4], /PTR="a.ns1.svc.cluster.local"/, 'IPv6 PTR');
  t.match(a[5], /A="10.1.0.1",A="10.1.0.2" /, 'ready endpoints only');
  t.match(a[6], /A="10.1.0.1"/, 'hostname from the pod spec');
  t.match(a[8], /SRV=.*"port":9000,"target":"two.h.ns1.svc.cluster.local"/);
  t.match(a[8], /\+2$/, 'A records of SRV targets in additional');
  t.match(a[9], /PTR="zero.h.ns1.svc.cluster.local"/, 'endpoint PTR hides the pod PTR');
  t.match(a[10], /PTR="10-1-0-50.ns1.pod.cluster.local"/, 'pod PTR');
  t.match(a[11], /A="10.96.0.20",CNAME="a.ns1.svc.cluster.local"/, 'CNAME inside the domain followed');
  t.match(a[12], /NXDOMAIN/);
  t.match(a[13], /NOERROR  /, 'namespace is an empty non-terminal');
  t.match(a[14], /NXDOMAIN/);
  t.match(a[15], /A="10.1.0.50"/);
  t.match(a[16], /NXDOMAIN/, 'verified: only pods that exist');
});

t.test('deleting what was created leaves nothing behind', async (t) => {
  const del = steps.map((s) => ({ ...s, op: 'delete' as const }));
  const { zone, resolver } = await build([...steps, ...del.reverse()], 'insecure');
  t.equal(zone.size, 0);
  t.equal(resolver.resolve(`ns1.svc.${D}`, 'A', 'IN').rcode, 'NXDOMAIN', 'no empty non-terminal left');
  t.equal(resolver.resolve(`10-1-0-51.ns1.pod.${D}`, 'A', 'IN').rcode, 'NOERROR', 'the spec requires pod records for any address (insecure)');
});

t.test('headless slice changes move hostnames and SRV', async (t) => {
  const { answers } = await build([...steps, { type: resources.endpointslices, obj: steps[3].obj, op: 'delete' }]);
  t.match(answers[5], /A="10.1.0.1" /);
  t.match(answers[7], /NXDOMAIN/);
});

t.test('names', async (t) => {
  t.equal(reverseName('10.0.3.1'), '1.3.0.10.in-addr.arpa');
  t.equal(expandIPv6('2001:db8::1'), '2001:0db8:0000:0000:0000:0000:0000:0001');
  t.equal(reverseName('2001:db8::1'), '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa');
  t.equal(dashed('fd00::1'), 'fd00--1');
  t.equal(undash('fd00--1'), 'fd00::1');
  t.equal(undash('10-0-0-300'), undefined);
});

t.test('encoding: TC with whole records kept, OPT echoed, BADVERS', async (t) => {
  const q = (edns?: { size: number; version?: number }) => {
    const p = parseQuery(dnsPacket.encode({
      id: 1, type: 'query', flags: dnsPacket.RECURSION_DESIRED, questions: [{ name: 'H.ns1.svc.cluster.local', type: 'A' }],
      additionals: edns ? [{ type: 'OPT', name: '.', udpPayloadSize: edns.size, ednsVersion: edns.version ?? 0, flags: 0 } as never] : [],
    }));
    if (!p.ok) throw new Error('parse');
    return p.query;
  };
  const answers = Array.from({ length: 30 }, (_, i) => ({ name: 'h.ns1.svc.cluster.local', type: 'A' as const, class: 'IN' as const, ttl: 30, data: `10.0.0.${i}` }));
  const res = { rcode: 'NOERROR' as const, authoritative: true, answers, authorities: [], additionals: [] };
  const plain = dnsPacket.decode(encodeResponse(q(), res, 512));
  t.ok(plain.flag_tc);
  t.ok(dnsPacket.encode(plain).length <= 512);
  t.ok(plain.answers!.length > 0 && plain.answers!.length < 30);
  t.equal(plain.questions![0].name, 'H.ns1.svc.cluster.local', 'question case kept');
  const big = dnsPacket.decode(encodeResponse(q({ size: 4096 }), res, 1232));
  t.notOk(big.flag_tc);
  t.equal(big.answers!.length, 30);
  t.equal(big.additionals!.filter((a) => a.type === 'OPT').length, 1);
  const badvers = encodeResponse(q({ size: 1232, version: 1 }), res, 1232);
  const dec = dnsPacket.decode(badvers);
  t.equal(dec.answers!.length, 0);
  t.equal((dec.additionals![0] as unknown as { extendedRcode: number }).extendedRcode, 1, 'BADVERS is extended rcode 16');
});

t.test('server: SERVFAIL for cluster names until synced; a zone change reaches cached answers', async (t) => {
  const { DNSServer } = await import('../../src/dns/server.js');
  const { PrebuiltAnswers } = await import('../../src/dns/prebuilt.js');
  const { DNSMetrics } = await import('../../src/dns/metrics.js');
  const { Forwarder } = await import('../../src/dns/forward.js');
  const { Registry } = await import('prom-client');
  const { logger } = await import('../../src/log/index.js');
  const zone = new Zone(D);
  const cache = new PrebuiltAnswers();
  let synced = false;
  const server = new DNSServer({
    zone, resolver: new Resolver(zone, { pods: 'insecure', ttl: 30 }), forwarder: new Forwarder({ upstreams: [], timeoutMs: 100 }),
    metrics: new DNSMetrics(new Registry(), () => cache.size, () => zone.size), cache, synced: () => synced, log: logger('dns', {}, () => undefined),
  });
  const ask = async (name: string) => dnsPacket.decode((await server.handle(dnsPacket.encode({ id: 9, type: 'query', questions: [{ name, type: 'A' }] }), false))!) as unknown as { rcode: string; answers: { data: unknown }[] };
  const rr = (ip: string) => [{ name: `a.ns1.svc.${D}`, type: 'A' as const, class: 'IN' as const, ttl: 30, data: ip }];
  zone.set('service/ns1/a', rr('10.96.0.1'));
  t.equal((await ask(`a.ns1.svc.${D}`)).rcode, 'SERVFAIL', 'not synced: no answer that could be wrong');
  t.equal((await ask('example.org')).rcode, 'REFUSED', 'forwarding does not wait for the sync');
  synced = true;
  t.same((await ask(`a.ns1.svc.${D}`)).answers.map((a) => a.data), ['10.96.0.1']);
  t.equal(cache.size, 1);
  t.same((await ask(`A.NS1.svc.${D}`)).answers.map((a) => a.data), ['10.96.0.1'], 'a cache hit for another case');
  zone.set('service/ns1/a', rr('10.96.0.2'));
  t.equal(cache.size, 0, 'a zone change clears the cache');
  t.same((await ask(`a.ns1.svc.${D}`)).answers.map((a) => a.data), ['10.96.0.2']);
  zone.set('service/ns1/a', []);
  t.equal((await ask(`a.ns1.svc.${D}`)).rcode, 'NXDOMAIN');
});
