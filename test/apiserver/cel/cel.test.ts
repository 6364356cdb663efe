// The CEL module: compiling (cache, upstream's "compilation failed" words), the Kubernetes
// libraries (quantity, lists, regex, url, strings, authorizer), the cost bound, and JSON's
// integers as CEL ints.
import t from 'tap';
import { AuthzSession, authorizerValue, compile, CompileError, COST_EXCEEDED, evaluate, evaluateSync, fromCel, toCel } from '../../../src/apiserver/cel/index.js';

const run = (expr: string, vars: Record<string, unknown> = {}, opts = {}) => {
  const p = compile(expr, Object.keys(vars));
  return fromCel(evaluateSync(p, Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, toCel(v)])), opts));
};

t.test('values: JSON integers are ints, fractions doubles; schema number stays double', async (t) => {
  t.equal(run('object.spec.replicas + 1', { object: { spec: { replicas: 3 } } }), 4);
  t.equal(run('object.spec.ratio * 2.0', { object: { spec: { ratio: 0.5 } } }), 1);
  t.equal(run('type(self) == double', { self: 1 }), false);
  t.equal(fromCel(evaluateSync(compile('type(self) == double', ['self']), { self: toCel(1, { type: 'number' }) })), true);
  t.equal(run('has(object.spec.x)', { object: { spec: {} } }), false);
  t.throws(() => run('object.spec.x == 1', { object: { spec: {} } }), /^no such key: x$/, 'a missing field in cel-go\'s words');
  t.equal(run('object.metadata.labels["app"]', { object: { metadata: { labels: { app: 'web' } } } }), 'web');
});

t.test('compile: cached by text; errors worded as upstream', async (t) => {
  t.equal(compile('1 + 1', []), compile('1 + 1', []), 'one program per expression');
  const cases: [string, string[], RegExp][] = [
    ['object.x ==', ['object'], /^compilation failed: ERROR: <input>:1:\d+: Syntax error: /],
    ['foo == 1', ['object'], /^compilation failed: ERROR: <input>:1:1: undeclared reference to 'foo' \(in container ''\)$/],
    ['object.spec.nope(1)', ['object'], /undeclared reference to 'nope'/],
    ['[1].all(x, x > y)', [], /<input>:1:16: undeclared reference to 'y'/],
  ];
  for (const [expr, vars, re] of cases) {
    t.throws(() => compile(expr, vars), re, expr);
    try { compile(expr, vars); } catch (e) { t.ok(e instanceof CompileError); }
  }
  t.equal(run('[1, 2].all(x, x > 0)'), true, 'comprehension variables are declared inside their loop');
});

t.test('quantity library', async (t) => {
  t.equal(run('quantity("1Gi").isGreaterThan(quantity("1000Mi"))'), true);
  t.equal(run('quantity("500m").isLessThan(quantity("1"))'), true);
  t.equal(run('quantity("2").add(quantity("3")).asInteger()'), 5);
  t.equal(run('quantity("2k").sub(1).asInteger()'), 1999);
  t.equal(run('quantity("1.5").isInteger()'), false);
  t.equal(run('quantity("100m").compareTo(quantity("0.1"))'), 0);
  t.equal(run('quantity("-1").sign()'), -1);
  t.equal(run('quantity("250m").asApproximateFloat()'), 0.25);
  t.equal(run('isQuantity("1Gi")'), true);
  t.equal(run('isQuantity("1 gig")'), false);
  t.throws(() => run('quantity("1 gig") == quantity("1")'), /invalid quantity/);
  t.throws(() => run('{"a": 1}.isLessThan(quantity("1"))'), /no matching overload for 'isLessThan'/, 'a plain map is not a quantity');
});

t.test('lists library', async (t) => {
  t.equal(run('[1, 2, 3].isSorted()'), true);
  t.equal(run('["b", "a"].isSorted()'), false);
  t.equal(run('[1, 2, 3].sum()'), 6);
  t.equal(run('[1.5, 2.5].sum()'), 4);
  t.equal(run('[3, 1, 2].min()'), 1);
  t.equal(run('["a", "c", "b"].max()'), 'c');
  t.equal(run('[1, 2, 1].indexOf(1)'), 0);
  t.equal(run('[1, 2, 1].lastIndexOf(1)'), 2);
  t.equal(run('[1, 2].indexOf(5)'), -1);
  t.throws(() => run('[].min()'), /empty list/);
});

t.test('regex, strings and url libraries', async (t) => {
  t.equal(run('"abc 123 def 456".find("[0-9]+")'), '123');
  t.strictSame(run('"abc 123 def 456".findAll("[0-9]+")'), ['123', '456']);
  t.strictSame(run('"a1b2c3".findAll("[0-9]", 2)'), ['1', '2']);
  t.equal(run('"abc".find("z")'), '');
  t.equal(run('"Hello".lowerAscii() + "-" + " x ".trim()'), 'hello-x');
  t.strictSame(run('"a,b".split(",")'), ['a', 'b']);
  t.equal(run('"abc".matches("^a")'), true);
  t.equal(run('url("https://example.com:8443/a/b?x=1&x=2").getHostname()'), 'example.com');
  t.equal(run('url("https://example.com:8443/a/b?x=1&x=2").getPort()'), '8443');
  t.equal(run('url("https://example.com/a/b").getScheme()'), 'https');
  t.equal(run('url("https://example.com/a/b").getEscapedPath()'), '/a/b');
  t.strictSame(run('url("https://example.com/?x=1&x=2").getQuery()'), { x: ['1', '2'] });
  t.equal(run('url("/path/only").getHost()'), '');
  t.equal(run('isURL("not a url")'), false);
});

t.test('cost bound: a runaway comprehension is cut off as upstream words it', async (t) => {
  const big = Array.from({ length: 2000 }, (_, i) => i);
  t.throws(() => run('l.all(x, l.all(y, x + y >= 0))', { l: big }, { costLimit: 100_000 }), new RegExp(COST_EXCEEDED));
  t.equal(run('l.all(x, x >= 0)', { l: big }, { costLimit: 100_000 }), true, 'within the limit it runs');
});

t.test('authorizer library asks the authorizer, also when it answers later', async (t) => {
  const asked: unknown[] = [];
  const session = new AuthzSession(async (q) => { asked.push(q); return { allowed: q.verb === 'get' && q.resource === 'secrets', reason: 'test' }; });
  const expr = 'authorizer.group("").resource("secrets").namespace("ns").name("s").check("get").allowed() && !authorizer.path("/healthz").check("get").allowed()';
  const p = compile(expr, ['authorizer']);
  t.equal(await evaluate(p, { authorizer: authorizerValue() }, { authz: session }), true);
  t.strictSame(asked, [
    { verb: 'get', isResourceRequest: true, group: '', resource: 'secrets', subresource: '', namespace: 'ns', name: 's', path: '' },
    { verb: 'get', isResourceRequest: false, group: '', resource: '', subresource: '', namespace: '', name: '', path: '/healthz' },
  ]);
  const req = compile('authorizer.requestResource.check("delete").reason()', ['authorizer']);
  t.equal(await evaluate(req, { authorizer: authorizerValue({ group: 'apps', resource: 'deployments', subresource: '', namespace: 'ns', name: 'd' }) }, { authz: session }), 'test');
  const sa = compile('authorizer.serviceAccount("ns", "bot").group("").resource("pods").check("list").allowed()', ['authorizer']);
  t.equal(await evaluate(sa, { authorizer: authorizerValue() }, { authz: session }), false);
  t.equal((asked.at(-1) as { serviceAccount: string }).serviceAccount, 'ns/bot');
});

t.test('optional syntax: .? and [?] select and index into optionals; chains stay optional', async (t) => {
  const o = { object: { spec: { replicas: 3, list: [1, 2], m: { a: 'x' } } } };
  t.equal(run('object.?spec.?replicas.orValue(1)', o), 3);
  t.equal(run('object.?spec.?nope.orValue(1)', o), 1);
  t.equal(run('object.?nope.replicas.hasValue()', o), false, 'a select on an optional is optional');
  t.equal(run('object.spec.list[?5].orValue(0)', o), 0);
  t.equal(run('object.spec.list[?1].value()', o), 2);
  t.equal(run('object.spec.m[?"a"].value()', o), 'x');
  t.equal(run('"a.?b" + \'[?\'', o), 'a.?b[?', 'inside string literals nothing changes');
  t.equal(run('optional.of(1).hasValue() && !optional.none().hasValue()'), true);
  t.equal(run('optional.none().or(optional.of(2)).value()'), 2);
  t.equal(run('optional.ofNonZeroValue("").hasValue() || optional.ofNonZeroValue(0).hasValue()'), false);
  t.throws(() => run('optional.none().value()'), /optional.none\(\) dereference/);
  t.throws(() => compile('f(1, ?object)', ['object']), /^compilation failed: ERROR: <input>:1:6: Syntax error: mismatched input '\?'/, 'an optional entry outside a literal');
  t.throws(() => compile('object.?x == nope', ['object']), /<input>:1:14: undeclared reference to 'nope'/, 'positions after .? stay true');
});

t.test('cel.bind binds a name once', async (t) => {
  t.equal(run('cel.bind(x, 1, x + 1)'), 2);
  t.equal(run('cel.bind(l, object.list, l.all(i, i > 0) && size(l) == 2)', { object: { list: [1, 2] } }), true);
  t.equal(run('cel.bind(a, 1, cel.bind(b, a + 1, a + b))'), 3);
  t.throws(() => compile('cel.bind(1, 1, 1)', []), /<input>:1:10: cel.bind\(\) variable name must be a simple identifier/);
  t.throws(() => compile('cel.bind(x, 1, y)', []), /undeclared reference to 'y'/);
});

t.test('optional entries in list and map literals keep only values that are present', async (t) => {
  const o = { object: { spec: { a: 1, list: [5] } } };
  t.same(run('[?object.spec.?a, ?object.spec.?nope, 3]', o), [1, 3]);
  t.same(run('[1, ?optional.none(), ?object.spec.list[?0]]', o), [1, 5]);
  t.same(run("{'a': 1, ?'b': object.spec.?a, ?'c': object.spec.?nope}", o), { a: 1, b: 1 });
  t.same(run("{?'k': optional.of([?optional.of(2)])}"), { k: [2] }, 'nested literals');
  t.equal(run('2 in [?optional.of(2)]'), true, "a literal after 'in'");
  t.same(run('true ? [?optional.none()] : [1]'), [], "a literal after '?' of a conditional");
  t.same(run('object.spec.list[?0].hasValue() ? [0] : [1]', o), [0], 'an optional index is still an index');
  t.throws(() => run('[?1]'), /an optional entry must be an optional/);
  t.throws(() => run("{'a': 1, ?'a': optional.of(2)}"), /Failed with repeated key: a/);
});

t.test('comments: // to the end of a line, also on the last line', async (t) => {
  t.equal(run('1 + 2 // three'), 3);
  t.equal(run('// leading\n[1, // one\n 2].size() // two'), 2);
  t.equal(run("'a // not a comment' + '//'"), 'a // not a comment//');
  t.throws(() => compile('1 + // x\n nope', []), /<input>:2:2: undeclared reference to 'nope'/, 'positions after a comment stay true');
});
