// Compile → decompile round trips of the rule vocabulary without a kernel (no root needed),
// plus key encodings the kernel and nft agree on.
import t from 'tap';
import { compileExpr } from '../../src/nft/compile.js';
import { decompileExprs } from '../../src/nft/decompile.js';
import { decodeKey, encodeKey, keyLen, keyTypeId, keyTypesOf } from '../../src/nft/encoding.js';
import type { Expr } from '../../src/nft/index.js';
import { VOCABULARY_RULES } from './fixtures/nft-tables.js';

const EXTRA: [Expr[], 'ip' | 'ip6' | 'inet'][] = [
  [[{ kind: 'match', field: 'ip6 daddr', value: 'fd00::/64' }, { kind: 'match', field: 'meta l4proto', value: 'tcp' }, { kind: 'dnat', addr: 'fd00::5', port: 80 }], 'ip6'],
  [[{ kind: 'match', field: 'meta nfproto', value: 'ipv4' }, { kind: 'match', field: 'ip daddr', value: '10.1.0.0/16', op: '!=' }, { kind: 'masquerade' }], 'inet'],
  [[{ kind: 'setMark', value: 0x4000 }, { kind: 'numgenVmap', mod: 3, map: 'eps' }], 'ip'],
  [[{ kind: 'match', field: 'meta l4proto', value: 47 }, { kind: 'reject', with: 'icmpx port-unreachable' }], 'inet'],
  [[{ kind: 'goto', chain: 'x' }], 'ip'],
  [[{ kind: 'match', field: 'meta l4proto', value: 'udp' }, { kind: 'range', field: 'th dport', from: 8000, to: 8080 }, { kind: 'counter' }, { kind: 'accept' }], 'ip'],
  [[{ kind: 'numgenVmap', mod: 10, offset: 160, map: 'endpoints' }], 'ip'],
];

t.test('every vocabulary form survives compile → decompile', async (t) => {
  for (const [exprs, family] of [...VOCABULARY_RULES.map((r) => [r, 'ip'] as [Expr[], 'ip']), ...EXTRA]) {
    const low = exprs.flatMap((e) => compileExpr(e, family));
    t.same(decompileExprs(low as never), exprs, JSON.stringify(exprs));
  }
});

t.test('concatenated keys are 4-byte aligned and typed like nft', async (t) => {
  const types = ['ipv4_addr', 'inet_proto', 'inet_service'] as const;
  t.equal(keyLen([...types]), 12);
  t.equal(keyTypeId([...types]), (7 << 12) | (12 << 6) | 13, 'same datatype id nft prints as ipv4_addr . inet_proto . inet_service');
  t.same(keyTypesOf(keyTypeId([...types])), types);
  const key = encodeKey([...types], ['10.96.0.1', 'tcp', 443]);
  t.same([...key], [10, 96, 0, 1, 6, 0, 0, 0, 1, 187, 0, 0], 'matches nft --debug=netlink: 0100600a 00000006 0000bb01');
  t.same(decodeKey([...types], key), ['10.96.0.1', 'tcp', 443]);
  t.same(decodeKey(['ipv6_addr'], encodeKey(['ipv6_addr'], ['fd00::1:2'])), ['fd00::1:2']);
});

t.test('bad vocabulary is a TypeError', async (t) => {
  t.throws(() => compileExpr({ kind: 'match', field: 'ip daddr', value: '10.0.0.0/40' }, 'ip'), TypeError);
  t.throws(() => compileExpr({ kind: 'match', field: 'meta l4proto', value: 'bogus' }, 'ip'), TypeError);
  t.throws(() => compileExpr({ kind: 'dnat', addr: 'fd00::1' }, 'ip'), TypeError);
  t.throws(() => encodeKey(['inet_service'], [70000]), TypeError);
});
