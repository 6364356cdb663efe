// The CRI client against an in-process gRPC server on a unix socket (no root, no
// containerd): message shapes, typed errors, deadlines, retries and reconnection.
import t from 'tap';
import * as grpc from '@grpc/grpc-js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CRIClient, CRIError, criServices, isNotFound, type CRIMethod } from '../../cri/index.js';

type Handler = (req: any) => unknown | Promise<unknown>;
const statusError = (code: number, details: string) => Object.assign(new Error(details), { code, details });

/** A CRI server whose RPCs are the given handlers (others answer UNIMPLEMENTED). */
/** Per method, how long the last call had left of its deadline when the server got it. */
const deadlineLeft = new Map<string, number>();

async function serve(socket: string, handlers: Partial<Record<CRIMethod, Handler>>): Promise<grpc.Server> {
  const server = new grpc.Server();
  const wrap = (svc: grpc.ServiceDefinition) => Object.fromEntries(Object.keys(svc).map((name) => [name,
    (call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) => {
      const deadline = call.getDeadline();
      deadlineLeft.set(name, (deadline instanceof Date ? deadline.getTime() : deadline) - Date.now());
      const h = handlers[name as CRIMethod];
      if (!h) return cb(statusError(grpc.status.UNIMPLEMENTED, name), null);
      Promise.resolve().then(() => h(call.request)).then((r) => cb(null, r), (e) => cb(e, null));
    }]));
  const { RuntimeService, ImageService } = criServices();
  server.addService(RuntimeService, wrap(RuntimeService));
  server.addService(ImageService, wrap(ImageService));
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socket}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
  return server;
}

const stop = (s: grpc.Server) => new Promise<void>((r) => s.tryShutdown(() => r()));

t.test('CRI client', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-cri-client-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  const socketPath = () => join(dir, `cri-${++n}.sock`);

  t.test('decodes with snake_case fields, int64 strings, enum names and null messages', async (t) => {
    const socket = socketPath();
    const server = await serve(socket, {
      Version: (req) => ({ version: req.version, runtime_name: 'fake', runtime_version: '1.0.0', runtime_api_version: 'v1' }),
      ListContainers: (req) => ({
        containers: [{ id: 'c1', pod_sandbox_id: req.filter.pod_sandbox_id, state: 'CONTAINER_RUNNING', created_at: '1700000000123456789', labels: { a: 'b' } }],
      }),
      ImageStatus: () => ({}),
      ExecSync: (req) => ({ stdout: Buffer.from(req.cmd.join(' ')), exit_code: 3 }),
    });
    t.teardown(() => stop(server));
    const cri = new CRIClient({ socket });
    t.teardown(() => cri.close());
    t.same(await cri.version(), { version: 'v1', runtime_name: 'fake', runtime_version: '1.0.0', runtime_api_version: 'v1' });
    const [c] = await cri.listContainers({ pod_sandbox_id: 'sb1' });
    t.equal(c.pod_sandbox_id, 'sb1');
    t.equal(c.state, 'CONTAINER_RUNNING');
    t.equal(c.created_at, '1700000000123456789', 'nanoseconds keep every digit');
    t.equal(c.metadata, null);
    t.same(c.labels, { a: 'b' });
    t.same(c.annotations, {});
    t.same(await cri.imageStatus('x'), { image: null, info: {} });
    const out = await cri.execSync('c1', ['echo', 'hi']);
    t.equal(out.stdout.toString(), 'echo hi');
    t.equal(out.stderr.length, 0);
    t.equal(out.exit_code, 3);
  });

  t.test('errors carry the gRPC code; observe sees every call', async (t) => {
    const socket = socketPath();
    const server = await serve(socket, {
      ContainerStatus: (req) => { throw statusError(grpc.status.NOT_FOUND, `container "${req.container_id}" not found`); },
    });
    t.teardown(() => stop(server));
    const seen: [CRIMethod, number][] = [];
    const cri = new CRIClient({ socket, observe: (m, _ms, code) => seen.push([m, code]) });
    t.teardown(() => cri.close());
    const err = await cri.containerStatus('nope').catch((e: unknown) => e);
    t.type(err, CRIError);
    t.ok(isNotFound(err));
    t.match(err, { method: 'ContainerStatus', codeName: 'NOT_FOUND', details: 'container "nope" not found' });
    await t.rejects(cri.pullImage('x'), { name: 'CRIError', codeName: 'UNIMPLEMENTED' });
    t.same(seen, [['ContainerStatus', grpc.status.NOT_FOUND], ['PullImage', grpc.status.UNIMPLEMENTED]]);
  });

  t.test('deadlines: per-class defaults, overrides, and StopContainer adds its grace period', async (t) => {
    const socket = socketPath();
    const server = await serve(socket, {
      Status: () => new Promise(() => undefined),
      StopContainer: () => new Promise((r) => setTimeout(() => r({}), 600)),
    });
    t.teardown(() => stop(server));
    const cri = new CRIClient({ socket, timeouts: { short: 300, long: 400 } });
    t.teardown(() => cri.close());
    t.equal(cri.timeoutFor('Status'), 300);
    t.equal(cri.timeoutFor('RunPodSandbox'), 400);
    for (const [opts, method, want] of [[{ ListImages: 5 }, 'ListImages', 5], [{}, 'PullImage', 120_000], [{}, 'Version', 10_000]] as const) {
      const c = new CRIClient({ socket, timeouts: opts });
      t.equal(c.timeoutFor(method), want, `${method} deadline`);
      c.close();
    }
    await t.rejects(cri.status(), { name: 'CRIError', codeName: 'DEADLINE_EXCEEDED' });
    // The deadline the runtime saw, not how long the test waited: a busy machine only shortens it.
    t.ok(deadlineLeft.get('Status')! <= 300, `Status carried its 300 ms deadline (${deadlineLeft.get('Status')} ms left on arrival)`);
    await t.rejects(cri.stopContainer('c', 0), { name: 'CRIError', codeName: 'DEADLINE_EXCEEDED' }, '400 ms < 600 ms');
    await cri.stopContainer('c', 1); // 400 ms + 1 s
  });

  t.test('UNAVAILABLE is retried for idempotent calls only', async (t) => {
    const socket = socketPath();
    const calls: string[] = [];
    const flaky = (name: string, ok: unknown) => () => {
      calls.push(name);
      if (calls.filter((c) => c === name).length === 1) throw statusError(grpc.status.UNAVAILABLE, 'shutting down');
      return ok;
    };
    const server = await serve(socket, {
      ListPodSandbox: flaky('ListPodSandbox', { items: [] }),
      CreateContainer: flaky('CreateContainer', { container_id: 'c1' }),
    });
    t.teardown(() => stop(server));
    const cri = new CRIClient({ socket });
    t.teardown(() => cri.close());
    t.same(await cri.listPodSandbox(), []);
    await t.rejects(cri.createContainer('sb', { metadata: { name: 'a' }, image: { image: 'i' } }, { metadata: { name: 'p', uid: 'u', namespace: 'n' } }),
      { name: 'CRIError', codeName: 'UNAVAILABLE' }, 'the runtime may have acted: the caller decides');
    t.same(calls, ['ListPodSandbox', 'ListPodSandbox', 'CreateContainer']);
  });

  t.test('"server is not initialized yet" (containerd just started) is retried for every RPC', async (t) => {
    const socket = socketPath();
    let calls = 0;
    const server = await serve(socket, {
      RunPodSandbox: () => {
        if (++calls <= 2) throw statusError(grpc.status.UNKNOWN, 'server is not initialized yet');
        return { pod_sandbox_id: 'sb1' };
      },
    });
    t.teardown(() => stop(server));
    const cri = new CRIClient({ socket });
    t.teardown(() => cri.close());
    t.equal(await cri.runPodSandbox({ metadata: { name: 'p', uid: 'u', namespace: 'n' } }), 'sb1');
    t.equal(calls, 3);
  });

  t.test('a call made while the runtime is down completes once it is back', async (t) => {
    const socket = socketPath();
    const version = { version: 'v1', runtime_name: 'fake', runtime_version: '1', runtime_api_version: 'v1' };
    let server = await serve(socket, { Version: () => version });
    const cri = new CRIClient({ socket, timeouts: { short: 5000 } });
    t.teardown(() => cri.close());
    await cri.version();
    await stop(server);
    rmSync(socket, { force: true });
    // The RPC that creates state waits for the runtime too: nothing was sent yet.
    const pending = Promise.all([cri.version(), cri.runPodSandbox({ metadata: { name: 'p', uid: 'u', namespace: 'n' } })]);
    await new Promise((r) => setTimeout(r, 400));
    server = await serve(socket, { Version: () => version, RunPodSandbox: () => ({ pod_sandbox_id: 'sb1' }) });
    t.teardown(() => stop(server));
    // Both calls carry the 5 s deadline: a client that did not reconnect in time fails them.
    const [v, id] = await pending;
    t.same(v, version);
    t.equal(id, 'sb1');
  });
});
