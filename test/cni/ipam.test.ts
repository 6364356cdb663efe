// IPAM on disk: distinct addresses, the reserved ones skipped, idempotent per owner, release,
// exhaustion, and what survives a restart or a crash.
import t from 'tap';
import { mkdtempSync, rmSync, writeFileSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IPAM, IPAMExhaustedError, assignableRange, nodeReservedAddress, parseCidr, formatIPv4, type Cidr } from '../../src/network/index.js';

function tmp(t: { teardown(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-ipam-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
const owner = (id: string) => ({ containerID: id, ifName: 'eth0', hostVeth: `cap${id}` });
const block = (s: string): Cidr => parseCidr(s)!;

t.test('CIDR parsing and the assignable range', async (t) => {
  t.same(parseCidr('10.244.1.0/24'), { base: 0x0af40100, prefix: 24, size: 256 });
  t.equal(parseCidr('10.244.1.5/24'), undefined, 'host bits set');
  t.equal(parseCidr('10.244.1.0/33'), undefined);
  t.equal(parseCidr('10.244.300.0/24'), undefined);
  const r = assignableRange(block('10.244.1.0/24'));
  t.same([formatIPv4(r.first), formatIPv4(r.last)], ['10.244.1.2', '10.244.1.254'], 'network, node address and broadcast skipped');
  t.equal(nodeReservedAddress(block('10.244.1.0/24')), '10.244.1.1');
});

t.test('allocations are distinct, skip reserved addresses, and are idempotent per owner', async (t) => {
  const ipam = new IPAM(tmp(t));
  const b = block('10.244.1.0/24');
  const a1 = ipam.allocate(b, owner('c1'));
  const a2 = ipam.allocate(b, owner('c2'));
  t.equal(a1.ip, '10.244.1.2');
  t.equal(a2.ip, '10.244.1.3');
  t.equal(ipam.allocate(b, owner('c1')).ip, a1.ip, 'a retried ADD gets the same address');
  t.same(JSON.parse(readFileSync(join(ipam.dir, a1.ip), 'utf8')), { containerID: 'c1', ifName: 'eth0', hostVeth: 'capc1' }, 'record names the owner');
  t.equal(ipam.release('c1', 'eth0')?.ip, a1.ip);
  t.equal(ipam.release('c1', 'eth0'), undefined, 'second release is a no-op');
  t.equal(ipam.allocate(b, owner('c3')).ip, '10.244.1.4', 'a just-released address is not reused at once');
});

t.test('an owner retried in a new block gives its old address back', async (t) => {
  const ipam = new IPAM(tmp(t));
  ipam.allocate(block('10.244.6.0/24'), owner('c1'));
  t.equal(ipam.allocate(block('10.244.7.0/24'), owner('c1')).ip, '10.244.7.2');
  t.same(readdirSync(ipam.dir).filter((f) => !f.startsWith('.')), ['10.244.7.2']);
});

t.test('a full block is an error, and a release makes room', async (t) => {
  const ipam = new IPAM(tmp(t));
  const b = block('10.244.2.0/29'); // .2 .. .6
  const got = ['a', 'b', 'c', 'd', 'e'].map((id) => ipam.allocate(b, owner(id)).ip);
  t.same(got, ['10.244.2.2', '10.244.2.3', '10.244.2.4', '10.244.2.5', '10.244.2.6']);
  t.throws(() => ipam.allocate(b, owner('f')), IPAMExhaustedError);
  ipam.release('c', 'eth0');
  t.equal(ipam.allocate(b, owner('f')).ip, '10.244.2.4');
});

t.test('a restarted IPAM keeps every allocation, also a half-written record', async (t) => {
  const dir = tmp(t);
  const b = block('10.244.3.0/24');
  const first = new IPAM(dir);
  const a = first.allocate(b, owner('c1'));
  // A crash between creating a record and writing it leaves an empty file: still taken.
  writeFileSync(join(dir, '10.244.3.3'), '');
  const second = new IPAM(dir);
  t.equal(second.find('c1', 'eth0')?.ip, a.ip, 'owner found after restart');
  const next = second.allocate(b, owner('c2'));
  t.not(next.ip, a.ip);
  t.not(next.ip, '10.244.3.3', 'the address of a half-written record is not handed out');
  t.same(readdirSync(dir).filter((f) => !f.startsWith('.')).sort(), ['10.244.3.2', '10.244.3.3', '10.244.3.4']);
});

t.test('a restarted IPAM goes on round-robin: a just-released address is not handed out again', async (t) => {
  const dir = tmp(t);
  const b = block('10.244.4.0/24');
  const first = new IPAM(dir);
  first.allocate(b, owner('c1'));
  const c2 = first.allocate(b, owner('c2'));
  first.release('c2', 'eth0');
  const restarted = new IPAM(dir);
  const c3 = restarted.allocate(b, owner('c3'));
  t.not(c3.ip, c2.ip, `after the restart the next address follows ${c2.ip}, not it`);
  t.equal(c3.ip, formatIPv4(parseCidr(`${c2.ip}/32`)!.base + 1));
});

t.test('two allocators on one directory never hand out the same address', async (t) => {
  const dir = tmp(t);
  const b = block('10.244.4.0/24');
  const x = new IPAM(dir), y = new IPAM(dir);
  const ips = new Set<string>();
  for (let i = 0; i < 20; i++) {
    ips.add((i % 2 ? x : y).allocate(b, owner(`c${i}`)).ip);
  }
  t.equal(ips.size, 20, 'O_EXCL record creation keeps them apart');
});

t.test('another sandbox of the same pod sharing the veth name is visible', async (t) => {
  const ipam = new IPAM(tmp(t));
  const b = block('10.244.5.0/24');
  ipam.allocate(b, { containerID: 'old', ifName: 'eth0', hostVeth: 'capX' });
  ipam.allocate(b, { containerID: 'new', ifName: 'eth0', hostVeth: 'capX' });
  t.same(ipam.othersWithVeth('capX', 'old').map((a) => a.containerID), ['new']);
});
