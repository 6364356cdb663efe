// Connection limits of the API server as a client sees them: half-open requests and silent
// TCP connections are closed after their timeouts, a flood of unauthenticated idle
// connections is cut down to the limit while an admin still gets in (and its watch lives on),
// and a 413 ends the connection.
import t from 'tap';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { connect as netConnect, type Socket } from 'node:net';
import { startAPIServer, type TestAPIServer } from '../helpers/api.js';
import { eventually } from '../helpers/kubectl.js';

const closed = (s: Socket, ms: number) => new Promise<boolean>((resolve) => {
  if (s.destroyed) return resolve(true);
  s.resume(); // a paused socket never sees the server's end
  const timer = setTimeout(() => resolve(false), ms);
  s.once('close', () => { clearTimeout(timer); resolve(true); });
});

function tlsTo(api: TestAPIServer, withCert = false): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const s = tlsConnect({
      host: '127.0.0.1', port: api.port, ca: api.pki.ca.certPem,
      ...(withCert ? { cert: api.pki.admin.certPem, key: api.pki.admin.keyPem } : {}),
    }, () => resolve(s));
    s.once('error', reject);
  });
}

t.test('a request whose headers never finish, or never start, is closed after the headers timeout', async (t) => {
  const api = await startAPIServer(t, { connections: { headersTimeoutMs: 1_000, checkIntervalMs: 250 } });
  const s = await tlsTo(api);
  t.teardown(() => s.destroy());
  s.on('error', () => undefined);
  const silent = await tlsTo(api);
  t.teardown(() => silent.destroy());
  silent.on('error', () => undefined);
  s.write('GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
  t.ok(await closed(s, 20_000), 'the server closed the half-open request');
  t.ok(await closed(silent, 20_000), 'and the connection that sent nothing after its handshake');
});

t.test('a watch outlives the headers and keep-alive timeouts that close its idle neighbours', async (t) => {
  const api = await startAPIServer(t, { connections: { headersTimeoutMs: 1_000, keepAliveTimeoutMs: 1_000, checkIntervalMs: 250 } });
  const watch = await api.client.watch('/api/v1/namespaces/default/configmaps?watch=true');
  t.teardown(() => watch.close());
  const halfOpen = await tlsTo(api);
  const idleAfterRequest = await tlsTo(api, true);
  t.teardown(() => { halfOpen.destroy(); idleAfterRequest.destroy(); });
  for (const s of [halfOpen, idleAfterRequest]) s.on('error', () => undefined);
  halfOpen.write('GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
  idleAfterRequest.write('GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  t.ok(await closed(halfOpen, 20_000), 'the half-open request was closed (headers timeout)');
  t.ok(await closed(idleAfterRequest, 20_000), 'the idle keep-alive connection was closed (keep-alive timeout)');
  await api.client.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'later' } });
  const ev = await watch.next(10_000);
  t.equal(ev?.object?.metadata?.name, 'later', 'the watch, older than both timeouts, still delivers');
});

t.test('a TCP connection that never starts TLS is closed after the handshake timeout', async (t) => {
  const api = await startAPIServer(t, { connections: { handshakeTimeoutMs: 1_000 } });
  const s = netConnect(api.port, '127.0.0.1');
  t.teardown(() => s.destroy());
  s.on('error', () => undefined);
  await new Promise((r) => s.once('connect', r));
  t.ok(await closed(s, 20_000), 'the server closed the silent connection');
});

t.test('a handshake the server had no turn to read while its event loop stalled is not cut by the handshake timeout', async (t) => {
  const api = await startAPIServer(t, { connections: { handshakeTimeoutMs: 1_000 } });
  const before = api.server.connectionStats.unauthenticated;
  const raw = netConnect(api.port, '127.0.0.1');
  t.teardown(() => raw.destroy());
  await new Promise((r) => raw.once('connect', r));
  await eventually(async () => api.server.connectionStats.unauthenticated > before, 10_000, 'the server accepted the connection');
  // The ClientHello goes out now; the server (in this process) reads it only after the stall,
  // which its handshake timer outlasts.
  const s = tlsConnect({ socket: raw, ca: api.pki.ca.certPem, cert: api.pki.admin.certPem, key: api.pki.admin.keyPem, servername: 'localhost' });
  t.teardown(() => s.destroy());
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2_500);
  const secured = await new Promise<string>((resolve) => {
    s.once('secureConnect', () => resolve('secure'));
    s.once('error', (e) => resolve(e.message));
    s.once('close', () => resolve('closed'));
    setTimeout(() => resolve('no handshake within 15 s'), 15_000).unref();
  });
  t.equal(secured, 'secure', 'the handshake finished');
  let reply = '';
  s.on('data', (d: Buffer) => { reply += d.toString(); });
  s.write('GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
  await closed(s, 20_000);
  t.match(reply, /^HTTP\/1\.1 200 /, 'and the request on it was answered');
});

t.test('unauthenticated idle connections beyond the limit are closed; an admin gets in and keeps its watch', async (t) => {
  const limit = 20;
  const api = await startAPIServer(t, { connections: { maxUnauthenticated: limit } });
  const watch = await api.client.watch('/api/v1/namespaces/default/configmaps?watch=true');
  t.teardown(() => watch.close());
  t.equal(watch.status, 200);

  const idle: TLSSocket[] = [];
  t.teardown(() => { for (const s of idle) s.destroy(); });
  for (let i = 0; i < 5 * limit; i++) {
    const s = await tlsTo(api).catch(() => undefined);
    if (s) { s.on('error', () => undefined); idle.push(s); }
  }
  await eventually(async () => idle.filter((s) => !s.destroyed && !s.closed).length <= limit, 10_000, 'idle connections cut to the limit');
  const open = idle.filter((s) => !s.destroyed && !s.closed).length;
  t.ok(open <= limit, `${open} of ${idle.length} unauthenticated connections left open (limit ${limit})`);
  t.ok(idle.slice(-limit / 2).every((s) => !s.destroyed && !s.closed), 'the newest were kept, the oldest closed');

  const res = await api.client.get('/version');
  t.equal(res.status, 200, 'an admin request is answered');
  const byToken = await api.client.get('/api/v1/namespaces/default/configmaps', { headers: { Authorization: `Bearer ${api.token}` } });
  t.equal(byToken.status, 200, 'a token request is answered');
  await api.client.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'after-flood' } });
  const ev = await watch.next(10_000);
  t.equal(ev?.object?.metadata?.name, 'after-flood', 'the admin watch opened before the flood still delivers');
});

t.test('a 413 closes the connection', async (t) => {
  const api = await startAPIServer(t);
  const s = await tlsTo(api, true);
  t.teardown(() => s.destroy());
  s.on('error', () => undefined);
  let reply = '';
  s.on('data', (d: Buffer) => { reply += d.toString(); });
  const size = 4 * 1024 * 1024;
  s.write(`POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\nConnection: keep-alive\r\n\r\n`);
  s.write('{"metadata":');
  t.ok(await closed(s, 20_000), 'the server closed the connection');
  t.match(reply, /^HTTP\/1\.1 413 /, 'answered 413');
  t.match(reply, /connection: close/i, 'saying it closes the connection');
});
