// HTTP/2 on the API server's TLS listener (src/apiserver/listener.ts): ALPN picks h2 or
// http/1.1 per connection; Node's own http2 client, over real TLS with the admin's client
// certificate, gets, lists, creates, watches and cancels a watch on one session; bodies,
// HEAD, errors (a refused oversized body leaves the session usable) and the caller's identity
// from the certificate or a token; and `http2: false` leaves every connection on HTTP/1.1.
import t from 'tap';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { connect as http2Connect, type ClientHttp2Session, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import { startAPIServer, fixtures, type TestAPIServer } from '../helpers/api.js';

/** The protocol the server picks when the client offers `offer` (false: none agreed). */
function negotiated(port: number, ca: string, offer: string[] | undefined): Promise<string | false> {
  return new Promise((resolve, reject) => {
    const s: TLSSocket = tlsConnect({ host: '127.0.0.1', port, ca, servername: 'localhost', ...(offer ? { ALPNProtocols: offer } : {}) }, () => {
      resolve(s.alpnProtocol ?? false);
      s.destroy();
    });
    s.once('error', reject);
  });
}

interface Reply { status: number; headers: IncomingHttpHeaders; text: string; body: any }

function session(api: TestAPIServer, creds: { cert?: string; key?: string } = { cert: api.pki.admin.certPem, key: api.pki.admin.keyPem }): ClientHttp2Session {
  const s = http2Connect(`https://127.0.0.1:${api.port}`, { ca: api.pki.ca.certPem, servername: 'localhost', ...creds });
  s.on('error', () => undefined);
  return s;
}

function call(s: ClientHttp2Session, method: string, path: string, body?: unknown, headers: OutgoingHttpHeaders = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
    const req = s.request({ ':method': method, ':path': path, accept: 'application/json', ...(data ? { 'content-type': 'application/json', 'content-length': data.length } : {}), ...headers });
    let status = 0;
    let replyHeaders: IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    req.on('response', (h) => { status = Number(h[':status']); replyHeaders = h; });
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString();
      let parsed: any = text;
      try { parsed = JSON.parse(text); } catch { /* not JSON */ }
      resolve({ status, headers: replyHeaders, text, body: parsed });
    });
    req.on('error', reject);
    req.end(data);
  });
}

const cacheListeners = (api: TestAPIServer) => (api.server as unknown as { cache: { listeners: Set<unknown> } }).cache.listeners.size;

async function metric(api: TestAPIServer, protocol: string): Promise<number> {
  const text = (await api.client.get('/metrics', { accept: 'text/plain' })).text;
  return Number(new RegExp(`^capstan_apiserver_connections_total\\{protocol="${protocol.replace('/', '\\/')}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
}

t.test('ALPN offers h2 and http/1.1; a client without ALPN gets HTTP/1.1', async (t) => {
  const api = await startAPIServer(t);
  const ca = api.pki.ca.certPem;
  t.equal(await negotiated(api.port, ca, ['h2', 'http/1.1']), 'h2');
  t.equal(await negotiated(api.port, ca, ['http/1.1', 'h2']), 'h2', 'the server prefers h2');
  t.equal(await negotiated(api.port, ca, ['http/1.1']), 'http/1.1', 'what Go’s WebSocket and SPDY dialers offer');
  t.equal(await negotiated(api.port, ca, undefined), false);
  // Node's https client offers no ALPN: HTTP/1.1, as before.
  const r = await api.client.get('/api/v1/namespaces/default');
  t.equal(r.status, 200);
  const h2Before = await metric(api, 'h2');
  const s = session(api);
  t.teardown(() => s.destroy());
  t.equal((await call(s, 'GET', '/version')).status, 200);
  t.equal(await metric(api, 'h2'), h2Before + 1, 'counted as an h2 connection');
  t.ok(await metric(api, 'http/1.1') >= 1);
});

t.test('get, list, create and watch on one HTTP/2 session with the admin client certificate', async (t) => {
  const api = await startAPIServer(t);
  const s = session(api);
  t.teardown(() => s.destroy());
  const cms = '/api/v1/namespaces/default/configmaps';
  const list = await call(s, 'GET', cms);
  t.equal(list.status, 200);
  t.equal(list.body.kind, 'ConfigMapList');
  t.notOk(list.headers['connection'] ?? list.headers['transfer-encoding'], 'no connection-specific headers');
  const rv = list.body.metadata.resourceVersion;

  // The watch stays open on the session while other streams of it write.
  const watch = s.request({ ':method': 'GET', ':path': `${cms}?watch=true&resourceVersion=${rv}`, accept: 'application/json' });
  watch.end();
  const [watchHeaders] = await new Promise<[IncomingHttpHeaders]>((r) => watch.once('response', (h) => r([h])));
  t.equal(watchHeaders[':status'], 200);
  t.equal(watchHeaders['content-type'], 'application/json');
  t.notOk(watchHeaders['transfer-encoding']);
  const events: any[] = [];
  let rest = '';
  watch.setEncoding('utf8');
  watch.on('data', (d: string) => {
    const lines = (rest + d).split('\n');
    rest = lines.pop()!;
    for (const l of lines) events.push(JSON.parse(l));
  });
  const listenersWithWatch = cacheListeners(api);

  const created = await call(s, 'POST', cms, fixtures.configMap('h2-one', { via: 'h2' }, { k: 'v' }));
  t.equal(created.status, 201, created.text);
  t.equal(created.body.metadata.name, 'h2-one');
  const got = await call(s, 'GET', `${cms}/h2-one`);
  t.equal(got.status, 200);
  t.same(got.body.data, { k: 'v' });
  const patched = await call(s, 'PATCH', `${cms}/h2-one`, { data: { k: 'w' } }, { 'content-type': 'application/merge-patch+json' });
  t.equal(patched.status, 200, patched.text);
  const deadline = Date.now() + 10_000;
  while (events.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  t.same(events.map((e) => [e.type, e.object.metadata.name, e.object.data.k]), [['ADDED', 'h2-one', 'v'], ['MODIFIED', 'h2-one', 'w']], 'the watch streamed both events as they happened');
  t.equal((await call(s, 'GET', cms)).body.items.length, 1, 'a list on the same session meanwhile');

  // Cancelling the stream (RST_STREAM) ends the watch on the server: its cache listener goes.
  watch.close();
  const gone = Date.now() + 5000;
  while (cacheListeners(api) >= listenersWithWatch && Date.now() < gone) await new Promise((r) => setTimeout(r, 20));
  t.equal(cacheListeners(api), listenersWithWatch - 1, 'the watch was unsubscribed when its stream closed');
  t.equal((await call(s, 'DELETE', `${cms}/h2-one`)).status, 200, 'the session goes on');
});

t.test('HEAD, errors, an oversized body, and who the caller is', async (t) => {
  const api = await startAPIServer(t);
  const s = session(api);
  t.teardown(() => s.destroy());
  const head = await call(s, 'HEAD', '/version');
  t.equal(head.status, 200);
  t.equal(head.text, '', 'HEAD has no body');
  const missing = await call(s, 'GET', '/api/v1/namespaces/default/configmaps/nope');
  t.equal(missing.status, 404);
  t.equal(missing.body.kind, 'Status');
  t.equal(missing.body.reason, 'NotFound');
  const bad = await call(s, 'POST', '/api/v1/namespaces/default/configmaps', Buffer.from('{not json'));
  t.equal(bad.status, 400);
  // 413 sets Connection: close for HTTP/1.1; on HTTP/2 that header is dropped, the stream ends.
  const big = await call(s, 'POST', '/api/v1/namespaces/default/configmaps', fixtures.configMap('big', {}, { k: 'x'.repeat(4 * 1024 * 1024) }));
  t.equal(big.status, 413);
  t.notOk(big.headers['connection']);
  t.equal((await call(s, 'GET', '/version')).status, 200, 'the session still serves');

  const review = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
  const byCert = await call(s, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', review);
  t.equal(byCert.status, 201, byCert.text);
  t.equal(byCert.body.status.userInfo.username, 'kubernetes-admin', 'the user is the client certificate’s CN');
  t.ok(byCert.body.status.userInfo.groups.includes('system:masters'));

  const tokenSession = session(api, {});
  t.teardown(() => tokenSession.destroy());
  const anonymous = await call(tokenSession, 'GET', '/api/v1/namespaces');
  t.equal(anonymous.status, 403, 'no certificate, no token: anonymous');
  t.match(anonymous.body.message, /system:anonymous/);
  const byToken = await call(tokenSession, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', review, { authorization: `Bearer ${api.token}` });
  t.equal(byToken.status, 201, byToken.text);
  t.not(byToken.body.status.userInfo.username, 'system:anonymous', 'a token on the same session is its own request’s identity');
});

t.test('HTTP/1.1 watches are still chunked', async (t) => {
  const api = await startAPIServer(t);
  const w = await api.client.watch('/api/v1/namespaces/default/configmaps?watch=true');
  t.teardown(() => w.close());
  t.equal(w.status, 200);
  t.equal(w.headers['transfer-encoding'], 'chunked');
  t.equal((await api.client.post('/api/v1/namespaces/default/configmaps', fixtures.configMap('c1'))).status, 201);
  t.equal((await w.next())?.type, 'ADDED');
});

t.test('http2: false offers HTTP/1.1 only', async (t) => {
  const api = await startAPIServer(t, { http2: false });
  t.equal(await negotiated(api.port, api.pki.ca.certPem, ['h2', 'http/1.1']), 'http/1.1');
  t.equal((await api.client.get('/version')).status, 200);
  t.equal(await metric(api, 'h2'), 0);
});

t.test('an HTTP/2 session with no open stream is closed after the keep-alive timeout', async (t) => {
  const api = await startAPIServer(t, { connections: { keepAliveTimeoutMs: 300 } });
  const s = session(api);
  t.teardown(() => s.destroy());
  const closed = new Promise<void>((r) => s.once('close', () => r()));
  const cms = '/api/v1/namespaces/default/configmaps';
  // An open watch keeps it, however quiet.
  const watch = s.request({ ':method': 'GET', ':path': `${cms}?watch=true`, accept: 'application/json' });
  watch.end();
  await new Promise((r) => watch.once('response', r));
  await new Promise((r) => setTimeout(r, 800));
  t.notOk(s.closed || s.destroyed, 'kept while a watch is open');
  watch.close();
  const timer = new Promise<string>((r) => setTimeout(() => r('still open'), 5000));
  t.equal(await Promise.race([closed.then(() => 'closed'), timer]), 'closed');
});
