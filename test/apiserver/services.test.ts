// Service ClusterIP and NodePort allocation as a client sees it.
import t from 'tap';
import { fixtures, startAPIServer } from '../helpers/api.js';

const api = await startAPIServer(t);
const c = api.client;
const svcs = '/api/v1/namespaces/default/services';

function ipToInt(ip: string): number {
  return ip.split('.').reduce((n, p) => n * 256 + Number(p), 0);
}
const inServiceRange = (ip: string) => ipToInt(ip) > ipToInt('10.96.0.0') && ipToInt(ip) < ipToInt('10.111.255.255');

t.test('the kubernetes Service exists at start with the first IP', async (t) => {
  const res = await c.get(`${svcs}/kubernetes`);
  t.equal(res.status, 200);
  t.equal(res.body.spec.clusterIP, '10.96.0.1');
  t.same(res.body.spec.clusterIPs, ['10.96.0.1']);
  t.match(res.body.spec.ports, [{ name: 'https', port: 443, protocol: 'TCP', targetPort: api.port }]);
  const ep = await c.get('/api/v1/namespaces/default/endpoints/kubernetes');
  t.equal(ep.status, 200);
  t.equal(ep.body.subsets[0].ports[0].port, api.port);
  const taken = await c.post(svcs, fixtures.service('steal', { clusterIP: '10.96.0.1' }));
  t.equal(taken.status, 422, 'its IP is allocated');
});

t.test('50 services get 50 distinct ClusterIPs from the range', async (t) => {
  const ips: string[] = [];
  for (let i = 0; i < 50; i++) {
    const res = await c.post(svcs, fixtures.service(`many-${i}`));
    t.equal(res.status, 201);
    const ip = res.body.spec.clusterIP as string;
    t.ok(inServiceRange(ip), `${ip} in 10.96.0.0/12`);
    t.same(res.body.spec.clusterIPs, [ip]);
    ips.push(ip);
  }
  t.equal(new Set([...ips, '10.96.0.1']).size, 51, 'all distinct, and none is the kubernetes Service IP');
  const listed = (await c.get(svcs)).body.items as any[];
  t.equal(new Set(listed.map((s) => s.spec.clusterIP)).size, listed.length, 'stored IPs are distinct');
});

t.test('a deleted Service releases its IP', async (t) => {
  const created = await c.post(svcs, fixtures.service('freed'));
  const ip = created.body.spec.clusterIP;
  const again = await c.post(svcs, fixtures.service('copycat', { clusterIP: ip }));
  t.equal(again.status, 422, 'held while the Service exists');
  t.match(again.body.message, /already allocated/);
  t.equal(again.body.details.causes[0].field, 'spec.clusterIPs');
  t.equal((await c.delete(`${svcs}/freed`)).status, 200);
  const reuse = await c.post(svcs, fixtures.service('reuser', { clusterIP: ip }));
  t.equal(reuse.status, 201, 'free again after delete');
  t.equal(reuse.body.spec.clusterIP, ip);
});

const badIPs = [
  { name: 'out of range', ip: '192.168.1.10', message: /not in the valid range/ },
  { name: 'the network address', ip: '10.96.0.0', message: /not in the valid range/ },
  { name: 'the broadcast address', ip: '10.111.255.255', message: /not in the valid range/ },
  { name: 'not an IP', ip: 'banana', message: /.+/ },
];
for (const b of badIPs) {
  t.test(`requested ClusterIP ${b.name} is 422`, async (t) => {
    const res = await c.post(svcs, fixtures.service(`bad-ip-${b.name.replace(/\W+/g, '-')}`, { clusterIP: b.ip }));
    t.equal(res.status, 422);
    t.equal(res.body.reason, 'Invalid');
    t.match(res.body.message, b.message);
  });
}

t.test('a failed create releases the IP it claimed', async (t) => {
  const res = await c.post(svcs, fixtures.service('half', { clusterIP: '10.96.200.1', type: 'NodePort', ports: [{ port: 80, nodePort: 99 }] }));
  t.equal(res.status, 422, 'nodePort out of range');
  const ok = await c.post(svcs, fixtures.service('whole', { clusterIP: '10.96.200.1' }));
  t.equal(ok.status, 201, 'the IP was not leaked');
});

t.test('ClusterIP cannot change on update', async (t) => {
  const s = (await c.post(svcs, fixtures.service('fixed-ip'))).body;
  const res = await c.put(`${svcs}/fixed-ip`, { ...s, spec: { ...s.spec, clusterIP: '10.96.123.123', clusterIPs: ['10.96.123.123'] } });
  t.equal(res.status, 422);
  const kept = await c.put(`${svcs}/fixed-ip`, { ...s, spec: { ...s.spec, clusterIP: undefined, clusterIPs: undefined, ports: [{ port: 81 }] } });
  t.equal(kept.status, 200, 'omitting clusterIP keeps it');
  t.equal(kept.body.spec.clusterIP, s.spec.clusterIP);
});

t.test('headless and ExternalName services allocate no IP', async (t) => {
  const headless = await c.post(svcs, fixtures.service('headless', { clusterIP: 'None' }));
  t.equal(headless.status, 201);
  t.equal(headless.body.spec.clusterIP, 'None');
  const ext = await c.post(svcs, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'ext' }, spec: { type: 'ExternalName', externalName: 'example.com' } });
  t.equal(ext.status, 201);
  t.notOk(ext.body.spec.clusterIP);
});

t.test('a headless Service stays headless', async (t) => {
  const s = (await c.post(svcs, fixtures.service('stays-headless', { clusterIP: 'None' }))).body;
  const omitted = await c.put(`${svcs}/stays-headless`, { ...s, spec: { ...s.spec, clusterIP: undefined, clusterIPs: undefined } });
  t.equal(omitted.status, 200);
  t.equal(omitted.body.spec.clusterIP, 'None', 'omitting clusterIP keeps None');
  const cur = omitted.body;
  const toIP = await c.put(`${svcs}/stays-headless`, { ...cur, spec: { ...cur.spec, clusterIP: '10.96.44.44', clusterIPs: ['10.96.44.44'] } });
  t.equal(toIP.status, 422, 'None cannot become an IP');
  t.equal(toIP.body.details.causes[0].field, 'spec.clusterIPs[0]');
  const ip = (await c.post(svcs, fixtures.service('not-headless'))).body;
  const toNone = await c.put(`${svcs}/not-headless`, { ...ip, spec: { ...ip.spec, clusterIP: 'None', clusterIPs: ['None'] } });
  t.equal(toNone.status, 422, 'an IP cannot become None');
  t.equal((await c.get(`${svcs}/not-headless`)).body.spec.clusterIP, ip.spec.clusterIP);
});

t.test('ExternalName and back: the IP is released, then a new one allocated', async (t) => {
  const s = (await c.post(svcs, fixtures.service('flip'))).body;
  const ext = await c.put(`${svcs}/flip`, { ...s, spec: { type: 'ExternalName', externalName: 'example.com' } });
  t.equal(ext.status, 200);
  t.notOk(ext.body.spec.clusterIP);
  const reuse = await c.post(svcs, fixtures.service('flip-reuse', { clusterIP: s.spec.clusterIP }));
  t.equal(reuse.status, 201, 'the old IP is free');
  const back = await c.put(`${svcs}/flip`, { ...ext.body, spec: { type: 'ClusterIP', ports: [{ port: 80 }] } });
  t.equal(back.status, 200);
  t.ok(inServiceRange(back.body.spec.clusterIP), 'a new IP');
  t.not(back.body.spec.clusterIP, s.spec.clusterIP);
});

t.test('NodePorts come from 30000-32767', async (t) => {
  const seen = new Set<number>();
  for (let i = 0; i < 5; i++) {
    const res = await c.post(svcs, fixtures.service(`np-${i}`, { type: 'NodePort', ports: [{ name: 'a', port: 80 }, { name: 'b', port: 443 }] }));
    t.equal(res.status, 201);
    for (const p of res.body.spec.ports) {
      t.ok(p.nodePort >= 30000 && p.nodePort <= 32767, `${p.nodePort} in range`);
      seen.add(p.nodePort);
    }
  }
  t.equal(seen.size, 10, 'distinct');
});

t.test('a specific NodePort: granted once, then 422; released on delete', async (t) => {
  const first = await c.post(svcs, fixtures.service('np-fixed', { type: 'NodePort', ports: [{ port: 80, nodePort: 31000 }] }));
  t.equal(first.status, 201);
  t.equal(first.body.spec.ports[0].nodePort, 31000);
  const second = await c.post(svcs, fixtures.service('np-clash', { type: 'NodePort', ports: [{ port: 80, nodePort: 31000 }] }));
  t.equal(second.status, 422);
  t.equal(second.body.details.causes[0].field, 'spec.ports[0].nodePort');
  t.match(second.body.message, /already allocated/);
  t.equal((await c.get(`${svcs}/np-clash`)).status, 404);
  await c.delete(`${svcs}/np-fixed`);
  const third = await c.post(svcs, fixtures.service('np-after', { type: 'NodePort', ports: [{ port: 80, nodePort: 31000 }] }));
  t.equal(third.status, 201, 'free again after delete');
});

t.test('a NodePort out of range is 422', async (t) => {
  for (const port of [29999, 32768]) {
    const res = await c.post(svcs, fixtures.service(`np-out-${port}`, { type: 'NodePort', ports: [{ port: 80, nodePort: port }] }));
    t.equal(res.status, 422, `${port}`);
    t.equal(res.body.details.causes[0].field, 'spec.ports[0].nodePort');
  }
});

t.test('a nodePort on a ClusterIP Service is 422', async (t) => {
  const res = await c.post(svcs, fixtures.service('cip-np', { ports: [{ port: 80, nodePort: 31500 }] }));
  t.equal(res.status, 422);
});

t.test('changing NodePort to ClusterIP releases the ports', async (t) => {
  const s = (await c.post(svcs, fixtures.service('np-to-cip', { type: 'NodePort', ports: [{ port: 80, nodePort: 31111 }] }))).body;
  const res = await c.put(`${svcs}/np-to-cip`, { ...s, spec: { ...s.spec, type: 'ClusterIP', externalTrafficPolicy: undefined, ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }] } });
  t.equal(res.status, 200);
  const reuse = await c.post(svcs, fixtures.service('np-reuse', { type: 'NodePort', ports: [{ port: 80, nodePort: 31111 }] }));
  t.equal(reuse.status, 201);
});

t.test('defaults', async (t) => {
  const res = await c.post(svcs, fixtures.service('defaults', { ports: [{ port: 8080 }] }));
  t.match(res.body.spec, { type: 'ClusterIP', sessionAffinity: 'None', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', internalTrafficPolicy: 'Cluster', ports: [{ port: 8080, protocol: 'TCP', targetPort: 8080 }] });
});
