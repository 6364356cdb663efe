// /healthz, /livez and /readyz as kube-apiserver answers them (k8s.io/apiserver pkg/server/healthz):
// each is a list of named checks; `GET /readyz` says `ok` or 500 with every check's line,
// `?verbose` lists them also on success, `?exclude=NAME` leaves one out, `/readyz/NAME` runs one.
// A failing check's reason goes to the log, never to the client ("reason withheld").
import type { ServerResponse } from 'node:http';
import type { Logger } from '../log/index.js';
import type { Store } from '../storage/store.js';
import { sendText } from './respond.js';

export interface HealthCheck {
  name: string;
  /** Resolves when healthy; rejects with the reason when not. */
  check(): Promise<void>;
}

const STORE_CHECK_TIMEOUT_MS = 2_000;

/** kube-apiserver names its storage check `etcd` whatever the backend (k3s's kine too). */
export function storeCheck(store: Store): HealthCheck {
  return { name: 'etcd', check: () => store.checkHealth(STORE_CHECK_TIMEOUT_MS) };
}

export const pingCheck: HealthCheck = { name: 'ping', check: async () => undefined };
export const logCheck: HealthCheck = { name: 'log', check: async () => undefined };

/** `shutdown` fails once the server has begun to stop, so load balancers drain it first. */
export function shutdownCheck(stopping: () => boolean): HealthCheck {
  return { name: 'shutdown', check: async () => { if (stopping()) throw new Error('process is shutting down'); } };
}

/**
 * A post-start hook's check (`poststarthook/<name>`): fails until the hook has finished, as
 * kube-apiserver's do on /healthz, /livez and /readyz (rbac/bootstrap-roles: until the
 * bootstrap policy is reconciled, requests may be refused that will be allowed).
 */
export function postStartHookCheck(name: string, finished: () => boolean): HealthCheck {
  return { name: `poststarthook/${name}`, check: async () => { if (!finished()) throw new Error('not finished'); } };
}

export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

export class HealthEndpoints {
  constructor(private readonly checks: Record<HealthEndpoint, HealthCheck[]>, private readonly log: Logger) {}

  /** Answers `/<endpoint>` and `/<endpoint>/<check>`; false when the path is neither. */
  async serve(path: string, query: URLSearchParams, res: ServerResponse): Promise<boolean> {
    // Check names may hold slashes (poststarthook/rbac/bootstrap-roles).
    const [, endpoint, ...rest] = path.split('/');
    const name = rest.length ? rest.join('/') : undefined;
    const checks = this.checks[endpoint as HealthEndpoint];
    if (!checks) return false;
    if (name !== undefined) {
      const one = checks.find((c) => c.name === name);
      if (!one) return false;
      const error = await this.run(endpoint, one);
      sendText(res, error ? 500 : 200, error ? `internal server error: ${name} failed: reason withheld\n` : 'ok');
      return true;
    }
    const excluded = new Set(query.getAll('exclude'));
    const selected = checks.filter((c) => !excluded.has(c.name));
    const errors = await Promise.all(selected.map((c) => this.run(endpoint, c)));
    const lines = selected.map((c, i) => (errors[i] ? `[-]${c.name} failed: reason withheld\n` : `[+]${c.name} ok\n`)).join('');
    const excludedLines = [...excluded].filter((n) => checks.some((c) => c.name === n)).map((n) => `[+]${n} excluded: ok\n`).join('');
    const failed = errors.some(Boolean);
    if (failed) sendText(res, 500, `${lines}${excludedLines}${endpoint} check failed\n`);
    else if (query.has('verbose')) sendText(res, 200, `${lines}${excludedLines}${endpoint} check passed\n`);
    else sendText(res, 200, 'ok');
    return true;
  }

  private async run(endpoint: string, c: HealthCheck): Promise<Error | undefined> {
    try {
      await c.check();
      return undefined;
    } catch (e) {
      this.log.warn(`${endpoint} check failed`, { check: c.name, error: (e as Error).message });
      return e as Error;
    }
  }
}
