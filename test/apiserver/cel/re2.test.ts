// RE2 in CEL: matches, find and findAll accept what Go's regexp accepts and refuse the rest
// (lookaround, backreferences, large repeat counts) when the expression is compiled; where
// RE2's syntax differs from JavaScript's the translation for find/findAll agrees with the RE2
// engine on every case here.
import t from 'tap';
import { compile, evaluateSync, fromCel } from '../../../src/apiserver/cel/index.js';
import { re2, translate } from '../../../src/apiserver/cel/library/re2.js';

const run = (expr: string) => fromCel(evaluateSync(compile(expr, []), {}));

t.test('what RE2 refuses is a compile error in Go regexp\'s words', async (t) => {
  const cases: [string, RegExp][] = [
    ["'ab'.matches('a(?=b)')", /^compilation failed: ERROR: <input>:1:\d+: invalid matches argument: error parsing regexp: invalid or unsupported Perl syntax: `\(\?=`$/],
    ["'aa'.find('(a)\\\\1')", /invalid find argument: error parsing regexp: invalid escape sequence: `\\1`/],
    ["'a'.findAll('a{1001}')", /invalid findAll argument: error parsing regexp: invalid repeat count: `\{1001\}`/],
    ["matches('ab', '(?<!a)b')", /invalid matches argument: error parsing regexp: invalid named capture: `\(\?<!a\)b`/],
  ];
  for (const [expr, re] of cases) t.throws(() => compile(expr, []), re, expr);
  t.throws(() => fromCel(evaluateSync(compile('"ab".matches(p)', ['p']), { p: 'a(?!b)' })), /error parsing regexp: invalid or unsupported Perl syntax/, 'a pattern known only at run time fails the evaluation');
});

t.test('RE2 syntax JavaScript lacks works in matches, find and findAll', async (t) => {
  t.equal(run("'Hello'.matches('(?i)^hello$')"), true);
  t.equal(run("'a.b'.matches('^\\\\Qa.b\\\\E$') && !'axb'.matches('^\\\\Qa.b\\\\E$')"), true);
  t.equal(run("'x1'.find('(?P<d>[[:digit:]]+)')"), '1');
  t.same(run("'ab CD ef'.findAll('(?i)[[:lower:]]+')"), ['ab', 'CD', 'ef']);
  t.same(run("'ab\\ncd'.findAll('(?m)^\\\\w')"), ['a', 'c']);
  t.same(run("'a\\nb'.findAll('.')"), ['a', 'b'], '. leaves out \\n only');
  t.same(run("'a\\rb'.findAll('.')"), ['a', '\r', 'b'], '. matches \\r, unlike JavaScript');
  t.same(run("'a\\u00a0b c'.findAll('\\\\s')"), [' '], '\\s is ASCII space only');
  t.equal(run("'ab\\n'.find('b\\\\z')"), '', '\\z is the very end');
  t.same(run("'aaa'.findAll('(?U)a+')"), ['a', 'a', 'a'], '(?U) swaps greediness');
  t.same(run("'abc'.findAll('', 2)"), ['', ''], 'empty matches, limited');
  t.same(run("'Ωx'.findAll('\\\\pL')"), ['Ω', 'x']);
  t.equal(run("'a{'.find('a{')"), 'a{', 'a brace that is no repeat is literal');
});

t.test('the translation agrees with the RE2 engine', async (t) => {
  const patterns = ['a+b', '(?i)k', '[^a-c]+', '(?s).+', '^$', '(?m)^b$', 'x*?y', '[\\d\\s]+', '\\x{41}\\101', '[]a]', '(?i:A)b', 'a|ab', '[[:^alpha:]]+', '\\Aa', '\\.\\-'];
  const inputs = ['', 'ab', 'aab', 'K', 'k', 'xyz', 'a\nb', 'b', 'xxy', '1 2', 'AA', 'Ab', 'ab!', '.-', ']a', 'a1'];
  for (const p of patterns) {
    const r = re2(p);
    const js = new RegExp(translate(p), 'v');
    for (const s of inputs) t.equal(js.test(s), r.test(s), `${p} on ${JSON.stringify(s)}`);
  }
});
