// Runs the official Python client (Debian's python3-kubernetes) against a test API server: a
// script gets `api` (ApiClient from an admin kubeconfig), `client`, `watch`, `v1` (CoreV1Api)
// and `apps` (AppsV1Api) in scope, and `emit(value)` writes one JSON line the test reads back.
// Models are emitted as the client itself serialises them (`sanitize_for_serialization`),
// so a test sees what the client made of the server's reply.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeAdminKubeconfig } from '../../src/cli/pki-files.js';
import type { TestAPIServer } from './api.js';
import type { Teardownable } from './apiserver-process.js';

/** The system interpreter, where the Debian package lives (a pyenv python3 on PATH lacks it). */
export const PYTHON = '/usr/bin/python3';

const prelude = `
import json, sys
from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException
api = config.new_client_from_config(config_file=sys.argv[1])
v1 = client.CoreV1Api(api)
apps = client.AppsV1Api(api)
def emit(value):
    print(json.dumps(api.sanitize_for_serialization(value)), flush=True)
def api_error(e):
    return {'status': e.status, 'body': json.loads(e.body) if e.body else None}
`;

export interface PythonRun {
  /** The emitted values, in order. */
  values: any[];
  stderr: string;
}

export interface PythonProcess {
  /** The next emitted value; rejects when none comes within `timeoutMs` or the script exits. */
  next(timeoutMs?: number): Promise<any>;
  /** Every value emitted and not yet taken. */
  rest(): any[];
  /** Resolves with the exit code. */
  exited: Promise<number>;
  stderr(): string;
  stop(): void;
}

export interface PythonClient {
  /** Runs a script to its end; throws with its stderr unless it exits 0. */
  run(script: string): Promise<PythonRun>;
  /** Starts a script that emits while the test acts (a watch). Stopped when the test ends. */
  start(script: string): PythonProcess;
}

export function pythonClient(t: Teardownable, server: TestAPIServer): PythonClient {
  const kubeconfig = writeAdminKubeconfig(server.dir, server.pki, `https://127.0.0.1:${server.port}`);
  // The client writes the kubeconfig's certificates to temporary files: keep them in the
  // server's directory, which goes when the test ends, also after a killed script.
  const env = { ...process.env, TMPDIR: server.dir };
  const launch = (script: string): ChildProcess => spawn(PYTHON, ['-u', '-c', `${prelude}\n${script}`, kubeconfig], { stdio: ['ignore', 'pipe', 'pipe'], env });

  const start = (script: string): PythonProcess => {
    const child = launch(script);
    const values: any[] = [];
    const waiters: Array<() => void> = [];
    let out = '', err = '', done = false;
    const wake = () => { for (const w of waiters.splice(0)) w(); };
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      let nl: number;
      while ((nl = out.indexOf('\n')) >= 0) {
        const line = out.slice(0, nl).trim();
        out = out.slice(nl + 1);
        if (line) values.push(JSON.parse(line));
      }
      wake();
    });
    child.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
    const exited = new Promise<number>((resolve) => child.once('close', (code) => { done = true; wake(); resolve(code ?? -1); }));
    const stop = () => { if (!done) child.kill('SIGKILL'); };
    t.teardown(stop);
    return {
      exited,
      stderr: () => err,
      rest: () => values.splice(0),
      stop,
      async next(timeoutMs = 15_000) {
        const deadline = Date.now() + timeoutMs;
        while (!values.length) {
          if (done) throw new Error(`the python script ended without emitting: ${err}`);
          const left = deadline - Date.now();
          if (left <= 0) throw new Error(`no value from the python script within ${timeoutMs} ms: ${err}`);
          await new Promise<void>((r) => {
            const timer = setTimeout(r, left);
            waiters.push(() => { clearTimeout(timer); r(); });
          });
        }
        return values.shift();
      },
    };
  };

  return {
    start,
    async run(script) {
      const p = start(script);
      const code = await p.exited;
      if (code !== 0) throw new Error(`python script failed (${code}): ${p.stderr()}`);
      return { values: p.rest(), stderr: p.stderr() };
    },
  };
}
