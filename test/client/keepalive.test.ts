// The REST client's kept-alive connections against a server that closes idle ones: a large
// POST that goes out on a pooled connection just as the API server's keep-alive timeout closes
// it is sent again on a new one (it was reset, unanswered: "socket hang up" on loaded VMs), and
// the client closes idle pooled connections itself, before any server's keep-alive timeout.
import t from 'tap';
import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { startAPIServer } from '../helpers/api.js';
import { IDLE_CONNECTION_MS, RESTClient } from '../../src/client/rest.js';
import { connectionDefaults } from '../../src/apiserver/server.js';

const big = (name: string) => ({ metadata: { name }, data: { blob: 'x'.repeat(512 * 1024) } });

/** Blocks this process's event loop (the in-process API server's too) without spinning. */
const blockEventLoop = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

t.test('a large POST on a pooled connection the server closes as it goes out is sent again', async (t) => {
  const keepAliveTimeoutMs = 2_000;
  const api = await startAPIServer(t, { connections: { keepAliveTimeoutMs } });
  const rest = new RESTClient({ server: `https://127.0.0.1:${api.port}`, caPem: api.pki.ca.certPem, certPem: api.pki.admin.certPem, keyPem: api.pki.admin.keyPem }, 'keepalive-test', undefined, 600_000);
  t.teardown(() => rest.close());
  await rest.request('POST', '/api/v1/namespaces/default/configmaps', { body: big('first') });
  // The server's keep-alive timer (Node adds a second to it) expires while the loop is blocked;
  // the next request is written on the pooled connection first, then the timer closes it.
  blockEventLoop(keepAliveTimeoutMs + 2_500);
  const second = rest.request('POST', '/api/v1/namespaces/default/configmaps', { body: big('second') });
  const created = await second.catch((e: Error) => e);
  t.notOk(created instanceof Error, `created on a new connection (${created instanceof Error ? created.message : 'ok'})`);
  const got = await rest.request('GET', '/api/v1/namespaces/default/configmaps/second');
  t.equal(got.data.blob.length, 512 * 1024, 'the whole body arrived once');
});

t.test('the client closes an idle pooled connection before a server would', async (t) => {
  t.ok(connectionDefaults.keepAliveTimeoutMs > 90_000 + 10_000, "the API server keeps idle connections well past Go's 90 s (kubectl)");
  t.ok(connectionDefaults.keepAliveTimeoutMs >= 2 * IDLE_CONNECTION_MS, 'and past twice the REST client\'s idle time');

  const api = await startAPIServer(t);
  const server = createServer({ cert: api.pki.serving.certPem, key: api.pki.serving.keyPem, keepAliveTimeout: 600_000 }, (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
  });
  const closedByClient: Socket[] = [];
  server.on('secureConnection', (s: Socket) => s.on('end', () => closedByClient.push(s)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => { server.closeAllConnections(); server.close(); });
  const rest = new RESTClient({ server: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, caPem: api.pki.ca.certPem }, 'keepalive-test', undefined, 300);
  t.teardown(() => rest.close());
  await rest.request('GET', '/version');
  await rest.request('GET', '/version');
  t.equal(closedByClient.length, 0, 'the connection is kept between requests');
  await new Promise((r) => setTimeout(r, 2_000));
  t.equal(closedByClient.length, 1, 'the client closed it after its idle time; the server never had to');
});
