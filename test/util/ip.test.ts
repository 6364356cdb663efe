import t from 'tap';
import { cidrContains, cidrOf, expandIPv6, formatCidr, formatIP, formatIPv4, ipBytes, parseCidr, parseIPv4 } from '../../src/util/ip.js';
import { seededRandom } from './seeded.js';

t.test('parseIPv4 / formatIPv4', async (t) => {
  const cases: [string, number | undefined][] = [
    ['0.0.0.0', 0], ['10.0.0.1', 0x0a000001], ['255.255.255.255', 0xffffffff], ['192.168.1.10', 0xc0a8010a],
    ['256.0.0.1', undefined], ['1.2.3', undefined], ['1.2.3.4.5', undefined], ['1.2.3.x', undefined], ['', undefined], ['1..2.3', undefined], ['1234.1.1.1', undefined],
  ];
  for (const [s, want] of cases) {
    t.equal(parseIPv4(s), want, s);
    if (want !== undefined) t.equal(formatIPv4(want), s);
  }
});

t.test('parseCidr: host bits rejected or masked; malformed is undefined', async (t) => {
  const cases: [string, 'reject' | 'mask', string | undefined][] = [
    ['10.244.0.0/16', 'reject', '10.244.0.0/16'], ['10.244.1.0/24', 'reject', '10.244.1.0/24'], ['10.244.1.5/24', 'reject', undefined],
    ['10.244.1.5/24', 'mask', '10.244.1.0/24'], [' 10.0.0.0/8 ', 'reject', '10.0.0.0/8'], ['0.0.0.0/0', 'reject', '0.0.0.0/0'],
    ['1.2.3.4/32', 'reject', '1.2.3.4/32'], ['10.0.0.0/33', 'mask', undefined], ['10.0.0.0', 'mask', undefined], ['x/8', 'mask', undefined],
  ];
  for (const [s, mode, want] of cases) {
    const c = parseCidr(s, mode);
    t.equal(c && formatCidr(c), want, `${s} (${mode})`);
  }
  const c = parseCidr('10.96.0.0/12')!;
  t.same([c.size, cidrContains(c, parseIPv4('10.111.255.255')!), cidrContains(c, parseIPv4('10.112.0.0')!)], [2 ** 20, true, false]);
});

t.test('cidrOf: every address lies in its own block', async (t) => {
  const { random } = seededRandom('cidrOf');
  for (let i = 0; i < 500; i++) {
    const ip = Math.floor(random() * 2 ** 32);
    const prefix = Math.floor(random() * 33);
    const c = cidrOf(ip, prefix);
    t.ok(cidrContains(c, ip) && c.base % c.size === 0 && c.size === 2 ** (32 - prefix), `${formatIPv4(ip)}/${prefix}`);
  }
});

t.test('IPv6: expand, bytes and inet_ntop text', async (t) => {
  const cases: [string, string, string][] = [
    ['2001:db8::1', '2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['::1', '0000:0000:0000:0000:0000:0000:0000:0001', '::1'],
    ['::', '0000:0000:0000:0000:0000:0000:0000:0000', '::'],
    ['fd00:1:0:0:2:0:0:3', 'fd00:0001:0000:0000:0002:0000:0000:0003', 'fd00:1::2:0:0:3'],
    ['::ffff:1.2.3.4', '0000:0000:0000:0000:0000:ffff:0102:0304', '::ffff:102:304'],
    ['1:2:3:4:5:6:7:8', '0001:0002:0003:0004:0005:0006:0007:0008', '1:2:3:4:5:6:7:8'],
  ];
  for (const [ip, full, text] of cases) {
    t.equal(expandIPv6(ip), full, ip);
    t.equal(formatIP(ipBytes(ip)!), text, `${ip} → bytes → text`);
  }
  t.equal(expandIPv6('10.0.0.1'), undefined);
  t.equal(ipBytes('not-an-ip'), undefined);
  t.same([...ipBytes('10.1.2.3')!], [10, 1, 2, 3]);
});

t.test('IPv6 bytes → text → bytes round-trips', async (t) => {
  const { random } = seededRandom('ipv6 round trip');
  for (let i = 0; i < 300; i++) {
    // Zero groups are common in real addresses: make them likely so compression is exercised.
    const b = new Uint8Array(16);
    for (let g = 0; g < 8; g++) if (random() < 0.5) { const v = Math.floor(random() * 65536); b[g * 2] = v >> 8; b[g * 2 + 1] = v & 255; }
    const text = formatIP(b);
    t.same([...ipBytes(text)!], [...b], text);
  }
});
