// The C plugin alone, against a stand-in agent: what it forwards, that it relays the answer
// byte for byte with the agent's exit code, and "try again later" when nobody answers.
import t from 'tap';
import { copyFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { parseRequest, pluginBinary, type CNIRequest } from '../../src/network/index.js';
import { runPlugin, tempDir } from './fixtures.js';

async function standIn(t: { teardown(fn: () => unknown): void }, path: string, answer: (req: CNIRequest) => Buffer | null): Promise<{ requests: CNIRequest[] }> {
  const requests: CNIRequest[] = [];
  const server: Server = createServer({ allowHalfOpen: true }, (c) => {
    const chunks: Buffer[] = [];
    c.on('data', (d: Buffer) => chunks.push(d));
    c.on('end', () => {
      const req = parseRequest(Buffer.concat(chunks));
      requests.push(req);
      const reply = answer(req);
      if (reply) c.end(reply);
      else c.destroy();
    });
  });
  await new Promise<void>((r) => server.listen(path, r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return { requests };
}

t.test('forwards env and stdin, relays the answer and exit code', async (t) => {
  const dir = tempDir(t);
  const plugin = await pluginBinary();
  const sock = join(dir, 'a.sock');
  const agent = await standIn(t, sock, () => Buffer.from('3\n{"cniVersion":"1.0.0","code":3,"msg":"x"}\n'));
  const stdin = JSON.stringify({ cniVersion: '1.0.0', name: 'n', type: 'capstan', agentSocket: sock, note: 'a\nb' });
  const r = await runPlugin(plugin, { CNI_COMMAND: 'DEL', CNI_CONTAINERID: 'abc', CNI_ARGS: 'A=1;B=2', OTHER: 'no' }, stdin);
  t.equal(r.code, 3, 'exit code from the agent');
  t.equal(r.stdout, '{"cniVersion":"1.0.0","code":3,"msg":"x"}\n', 'stdout verbatim');
  const req = agent.requests[0]!;
  t.ok(req.pid && req.pid > 0, 'its pid');
  t.same(req.env, { CNI_COMMAND: 'DEL', CNI_CONTAINERID: 'abc', CNI_ARGS: 'A=1;B=2' }, 'only CNI_* variables');
  t.equal(req.stdin.toString(), stdin, 'stdin verbatim');
});

t.test('finds the socket beside its executable when the config names none', async (t) => {
  const dir = tempDir(t);
  const bin = join(dir, 'loopback');
  copyFileSync(await pluginBinary(), bin);
  const sock = join(dir, 'b.sock');
  writeFileSync(join(dir, 'capstan.socket-path'), `${sock}\n`);
  await standIn(t, sock, () => Buffer.from('0\n{}\n'));
  const r = await runPlugin(bin, { CNI_COMMAND: 'ADD' }, '{"cniVersion":"0.3.1","name":"cni-loopback","type":"loopback"}');
  t.same([r.code, r.stdout], [0, '{}\n']);
});

t.test('no agent, or an agent that hangs up: error 11 in the caller\'s version', async (t) => {
  const dir = tempDir(t);
  const plugin = await pluginBinary();
  const gone = await runPlugin(plugin, { CNI_COMMAND: 'ADD' }, JSON.stringify({ cniVersion: '0.4.0', agentSocket: join(dir, 'none.sock') }));
  t.equal(gone.code, 1);
  t.match(gone.json, { cniVersion: '0.4.0', code: 11, msg: /not running/, details: /No such file/ });
  const sock = join(dir, 'c.sock');
  await standIn(t, sock, () => null);
  const hung = await runPlugin(plugin, { CNI_COMMAND: 'ADD' }, JSON.stringify({ cniVersion: '1.0.0', agentSocket: sock }));
  t.match([hung.code, hung.json], [1, { code: 11, msg: /without an answer/ }]);
  const v = await runPlugin(plugin, { CNI_COMMAND: 'VERSION' }, '{}');
  t.equal(v.code, 0, 'VERSION needs no agent');
});
