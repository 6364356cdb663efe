// The cluster DNS server against dig: every record kind of the Kubernetes DNS
// specification, built from objects created through a real (in-process) API server.
import { execFile } from 'node:child_process';
import t from 'tap';
import { resources } from '../../src/client/index.js';
import { data, startCluster, within } from './harness.js';

const D = 'cluster.local';

t.test('cluster records through dig', async (t) => {
  const c = await startCluster(t);
  const svcs = c.clients.resource(resources.services);
  const slices = c.clients.resource(resources.endpointslices);
  const pods = c.clients.resource(resources.pods);

  const web = await svcs.create('default', {
    metadata: { name: 'web' },
    spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, protocol: 'TCP' }, { name: 'dns', port: 53, protocol: 'UDP' }] },
  });
  const webIP = web.spec!.clusterIP as string;
  await svcs.create('default', { metadata: { name: 'db' }, spec: { clusterIP: 'None', ports: [{ name: 'pg', port: 5432 }] } });
  await svcs.create('default', { metadata: { name: 'ext' }, spec: { type: 'ExternalName', externalName: 'www.example.com' } });
  const pod = await pods.create('default', { metadata: { name: 'db-1' }, spec: { hostname: 'db-1', subdomain: 'db', containers: [{ name: 'c', image: 'busybox' }] } });
  await pods.updateStatus({ ...pod, status: { phase: 'Running', podIP: '10.1.0.2', podIPs: [{ ip: '10.1.0.2' }] } });
  const client = await pods.create('default', { metadata: { name: 'client' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
  await pods.updateStatus({ ...client, status: { phase: 'Running', podIP: '10.1.0.9', podIPs: [{ ip: '10.1.0.9' }] } });
  await slices.create('default', {
    metadata: { name: 'db-abc', labels: { 'kubernetes.io/service-name': 'db' } },
    addressType: 'IPv4',
    ports: [{ name: 'pg', port: 5432, protocol: 'TCP' }],
    endpoints: [
      { addresses: ['10.1.0.1'], hostname: 'db-0', conditions: { ready: true } },
      { addresses: ['10.1.0.2'], targetRef: { kind: 'Pod', namespace: 'default', name: 'db-1' }, conditions: { ready: true } },
      { addresses: ['10.1.0.3'], conditions: { ready: false } },
    ],
  });
  await within(3000, async () => (await c.dig([`db-1.db.default.svc.${D}`])).answer.length === 1, 'objects in the zone');

  await t.test('ClusterIP Service: A, case-insensitive, authoritative', async (t) => {
    const r = await c.dig([`web.default.svc.${D}`, 'A']);
    t.equal(r.status, 'NOERROR');
    t.ok(r.flags.includes('aa'), 'authoritative');
    t.same(data(r, 'A'), [webIP]);
    t.equal(r.answer[0].ttl, 30);
    const mixed = await c.dig([`WeB.DeFault.SVC.Cluster.LOCAL`, 'A']);
    t.same(data(mixed, 'A'), [webIP]);
    t.match(mixed.raw, /;WeB\.DeFault\.SVC\.Cluster\.LOCAL\.\s+IN\s+A/, 'question echoed with its case');
  });

  await t.test('SRV for named ports only, target the Service, its A in additional', async (t) => {
    const r = await c.dig([`_http._tcp.web.default.svc.${D}`, 'SRV']);
    t.same(data(r, 'SRV'), [`0 100 80 web.default.svc.${D}.`]);
    t.same(r.additional.filter((a) => a.type === 'A').map((a) => a.data), [webIP]);
    t.same(data(await c.dig([`_dns._udp.web.default.svc.${D}`, 'SRV'])), [`0 100 53 web.default.svc.${D}.`]);
    t.equal((await c.dig([`_dns._tcp.web.default.svc.${D}`, 'SRV'])).status, 'NXDOMAIN', 'protocol is part of the name');
  });

  await t.test('PTR for a ClusterIP', async (t) => {
    const r = await c.dig(['-x', webIP]);
    t.same(data(r, 'PTR'), [`web.default.svc.${D}.`]);
  });

  await t.test('headless Service: ready endpoints, hostnames (endpoint or pod spec), SRV per endpoint, PTR', async (t) => {
    t.same(data(await c.dig([`db.default.svc.${D}`])), ['10.1.0.1', '10.1.0.2']);
    t.same(data(await c.dig([`db-0.db.default.svc.${D}`])), ['10.1.0.1']);
    t.same(data(await c.dig([`DB-1.db.default.svc.${D}`])), ['10.1.0.2'], 'hostname from pod spec.hostname/subdomain');
    const srv = await c.dig([`_pg._tcp.db.default.svc.${D}`, 'SRV']);
    t.same(data(srv), [`0 100 5432 db-0.db.default.svc.${D}.`, `0 100 5432 db-1.db.default.svc.${D}.`]);
    t.same(srv.additional.map((a) => a.data).sort(), ['10.1.0.1', '10.1.0.2']);
    t.same(data(await c.dig(['-x', '10.1.0.1'])), [`db-0.db.default.svc.${D}.`]);
    t.same(data(await c.dig(['-x', '10.1.0.2'])), [`db-1.db.default.svc.${D}.`], 'endpoint PTR wins over the pod PTR');
    t.equal((await c.dig([`10-1-0-3.db.default.svc.${D}`])).status, 'NXDOMAIN', 'not-ready endpoint hidden');
  });

  await t.test('publishNotReadyAddresses shows unready endpoints', async (t) => {
    const db = await svcs.get('default', 'db');
    await svcs.update({ ...db, spec: { ...db.spec, publishNotReadyAddresses: true } });
    await within(1000, async () => data(await c.dig([`db.default.svc.${D}`])).length === 3, 'unready endpoint published');
    t.same(data(await c.dig([`10-1-0-3.db.default.svc.${D}`])), ['10.1.0.3'], 'no hostname: the dashed address names it');
  });

  await t.test('pod records and pod PTR', async (t) => {
    t.same(data(await c.dig([`10-1-0-9.default.pod.${D}`])), ['10.1.0.9']);
    t.same(data(await c.dig(['-x', '10.1.0.9'])), [`10-1-0-9.default.pod.${D}.`]);
    t.equal((await c.dig([`10-1-0.default.pod.${D}`])).status, 'NXDOMAIN');
  });

  await t.test('ExternalName → CNAME', async (t) => {
    const r = await c.dig([`ext.default.svc.${D}`, 'A']);
    t.equal(r.status, 'NOERROR');
    t.same(r.answer.map((a) => `${a.type} ${a.data}`), ['CNAME www.example.com.']);
  });

  await t.test('NXDOMAIN and NODATA carry the SOA; empty non-terminals exist', async (t) => {
    const nx = await c.dig([`nosuch.default.svc.${D}`]);
    t.equal(nx.status, 'NXDOMAIN');
    t.ok(nx.flags.includes('aa'));
    t.same(nx.authority.map((a) => `${a.name} ${a.type}`), [`${D}. SOA`]);
    const nodata = await c.dig([`web.default.svc.${D}`, 'AAAA']);
    t.equal(nodata.status, 'NOERROR');
    t.equal(nodata.answer.length, 0);
    t.same(nodata.authority.map((a) => a.type), ['SOA']);
    t.equal((await c.dig([`default.svc.${D}`])).status, 'NOERROR');
    t.equal((await c.dig([`svc.${D}`])).status, 'NOERROR');
    t.equal((await c.dig([`nons.svc.${D}`])).status, 'NXDOMAIN');
    t.same(data(await c.dig([D, 'SOA'])).length, 1);
    t.same(data(await c.dig([`dns-version.${D}`, 'TXT'])), ['"1.0.1"']);
    t.same(data(await c.dig([D, 'NS'])), [`ns.dns.${D}.`]);
  });

  await t.test('outside the domain with no upstream: REFUSED', async (t) => {
    // dig gives up after +time=3 with status NONE: a server that waited would not say REFUSED.
    const r = await c.dig(['example.org', 'A']);
    t.equal(r.status, 'REFUSED');
  });

  await t.test('TCP', async (t) => {
    const r = await c.dig(['+tcp', `web.default.svc.${D}`]);
    t.same(data(r), [webIP]);
    t.match(r.raw, /\(TCP\)/);
  });

  await t.test('EDNS0: OPT in replies, BADVERS for version 1, none without EDNS', async (t) => {
    t.equal((await c.dig([`web.default.svc.${D}`])).ednsUDP, 1232);
    t.equal((await c.dig(['+noedns', `web.default.svc.${D}`])).ednsUDP, undefined);
    const bad = await c.dig(['+edns=1', '+noednsnegotiation', `web.default.svc.${D}`]);
    t.equal(bad.status, 'BADVERS');
  });

  await t.test('truncation: TC over 512 bytes without EDNS0 and over the advertised size; dig retries over TCP', async (t) => {
    const endpoints = Array.from({ length: 20 }, (_, i) => ({ addresses: [`10.2.0.${i + 1}`], conditions: { ready: true } }));
    await svcs.create('default', { metadata: { name: 'big' }, spec: { clusterIP: 'None', ports: [{ name: 'x', port: 1 }] } });
    await slices.create('default', { metadata: { name: 'big-1', labels: { 'kubernetes.io/service-name': 'big' } }, addressType: 'IPv4', ports: [{ name: 'x', port: 1, protocol: 'TCP' }], endpoints });
    const name = `big.default.svc.${D}`;
    await within(1000, async () => (await c.dig(['+tcp', name])).answer.length === 20, 'big service');
    const plain = await c.dig(['+ignore', '+noedns', name]);
    t.ok(plain.flags.includes('tc'), 'TC without EDNS0');
    t.ok(plain.answer.length < 20 && plain.answer.length > 0, `a prefix of whole records (${plain.answer.length})`);
    const edns = await c.dig(['+ignore', '+bufsize=1232', name]);
    t.notOk(edns.flags.includes('tc'), '20 A records (no name compression) fit in 1232 bytes');
    t.equal(edns.answer.length, 20);
    const small = await c.dig(['+ignore', '+bufsize=600', name]);
    t.ok(small.flags.includes('tc'), 'TC over the advertised 600 bytes');
    const retried = await c.dig(['+noedns', name]);
    t.notOk(retried.flags.includes('tc'));
    t.equal(retried.answer.length, 20, 'dig retried over TCP and got everything');
    t.match(retried.raw, /Truncated, retrying in TCP mode/);
  });

  await t.test('nslookup: short, namespace-qualified and full names through a search list', async (t) => {
    // What a ClusterFirst pod in `default` does: search default.svc.cluster.local svc.cluster.local cluster.local.
    const look = (n: string, domain?: string) => new Promise<string>((resolve) => {
      const args = [`-port=${c.port}`, '-timeout=3', '-retry=1', '-ndots=5', ...(domain ? [`-domain=${domain}`] : []), n, '127.0.0.1'];
      execFile('nslookup', args, { timeout: 15_000 }, (_err, stdout) => resolve(stdout));
    });
    const answer = (out: string) => /Name:\s+(\S+)\nAddress: (\S+)/.exec(out)?.slice(1, 3);
    t.same(answer(await look('web', 'default.svc.cluster.local')), [`web.default.svc.${D}`, webIP], 'short name');
    t.same(answer(await look('web.default', 'svc.cluster.local')), [`web.default.svc.${D}`, webIP], 'namespace-qualified');
    t.same(answer(await look(`web.default.svc.${D}`)), [`web.default.svc.${D}`, webIP], 'full name');
  });

  await t.test('metrics count queries by type and rcode', async (t) => {
    const text = await c.registry.metrics();
    t.match(text, /capstan_dns_requests_total\{proto="udp",type="SRV"\} [1-9]/);
    t.match(text, /capstan_dns_responses_total\{rcode="NXDOMAIN"\} [1-9]/);
    t.match(text, /capstan_dns_request_duration_seconds_bucket/);
    t.match(text, /capstan_dns_cache_entries [1-9]/);
  });
});

t.test('a Service created, changed and deleted shows in answers within a second', async (t) => {
  const c = await startCluster(t);
  const svcs = c.clients.resource(resources.services);
  const name = `live.default.svc.${D}`;
  t.equal((await c.dig([name])).status, 'NXDOMAIN');
  const created = await svcs.create('default', { metadata: { name: 'live' }, spec: { selector: { app: 'x' }, ports: [{ name: 'http', port: 80 }] } });
  const tCreate = await within(1000, async () => data(await c.dig([name]))[0] === created.spec!.clusterIP, 'created');
  const srv = `_admin._tcp.${name}`;
  t.equal((await c.dig([srv, 'SRV'])).status, 'NXDOMAIN');
  await svcs.update({ ...created, spec: { ...created.spec, ports: [...created.spec!.ports!, { name: 'admin', port: 9000, protocol: 'TCP' }] } });
  const tChange = await within(1000, async () => data(await c.dig([srv, 'SRV']))[0] === `0 100 9000 ${name}.`, 'changed');
  await svcs.delete('default', 'live');
  const tDelete = await within(1000, async () => (await c.dig([name])).status === 'NXDOMAIN', 'deleted');
  t.pass(`create ${tCreate} ms, change ${tChange} ms, delete ${tDelete} ms`);
});
