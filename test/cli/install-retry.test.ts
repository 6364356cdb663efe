// `capstan install`'s idempotent API steps are tried again when the API server drops the
// connection without answering (seen on emulated VMs under load: "socket hang up"), and not
// when it answers with an error.
import t from 'tap';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APIError } from '../../src/client/index.js';
import { retryingTransport } from '../../src/cli/install/wait.js';

t.test('a dropped connection is tried again; an answer is final', async (t) => {
  let requests = 0;
  const server = createServer((req, res) => {
    requests++;
    if (requests === 1) { req.socket.destroy(); return; } // the first request: hung up without an answer
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const port = (server.address() as AddressInfo).port;
  const get = () => new Promise<string>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent: false }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; }).on('end', () => resolve(body)).on('error', reject);
    });
    req.on('error', reject).end();
  });
  const errors: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string) => { errors.push(String(chunk)); return true; }) as typeof process.stderr.write;
  try {
    t.equal(await retryingTransport('the test step', 10_000, get, 10), 'ok', 'the second try answers');
  } finally {
    process.stderr.write = write;
  }
  t.equal(requests, 2);
  t.match(errors.join(''), /the test step: socket hang up; trying again/);

  let calls = 0;
  await t.rejects(retryingTransport('a forbidden step', 10_000, async () => { calls++; throw new APIError(403, 'Forbidden', 'forbidden'); }, 10), /forbidden/);
  t.equal(calls, 1, 'an answer from the server is not tried again');
  calls = 0;
  const timedOut = await retryingTransport('a slow step', 10_000, async () => {
    if (++calls === 1) throw new APIError(504, 'Timeout', 'POST /x: no answer within 30000 ms');
    return 'done';
  }, 10);
  t.equal(timedOut, 'done', "the client's own timeout (no answer) is tried again");
});
