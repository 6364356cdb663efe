// Headless Chromium (Debian's `chromium`) driven over the DevTools protocol on a pipe (no
// debugging port is opened). Chromium talks to the network on its own (the system resolver,
// probes), so it always runs inside a network namespace with no route off the machine: a
// fresh one holding only loopback, or one the caller names (a lab namespace, whose router
// leads nowhere). Names do not resolve and anything but loopback goes to a dead proxy besides.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

export const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));

export interface Page {
  /** Evaluates `expression` in the page (awaiting a returned promise) and returns its JSON value. */
  evaluate<T = unknown>(expression: string): Promise<T>;
  navigate(url: string): Promise<void>;
}

export interface Browser {
  newPage(url: string): Promise<Page>;
  close(): Promise<void>;
}

interface Pending { resolve(v: unknown): void; reject(e: Error): void }

/** A network namespace with loopback only, removed by the returned function. */
function loopbackOnlyNetns(): { name: string; remove(): void } {
  const name = `capstan-chr-${randomBytes(3).toString('hex')}`;
  execFileSync('ip', ['netns', 'add', name]);
  try {
    execFileSync('ip', ['-n', name, 'link', 'set', 'lo', 'up']);
  } catch (e) {
    execFileSync('ip', ['netns', 'del', name]);
    throw e;
  }
  return { name, remove: () => { try { execFileSync('ip', ['netns', 'del', name]); } catch { /* already gone */ } } };
}

/**
 * Starts Chromium in `opts.netns` (which must have no route off the machine), or in a new
 * namespace with loopback only: pages it loads reach only what listens in that namespace.
 */
export async function launchChromium(opts: { netns?: string } = {}): Promise<Browser> {
  if (!CHROMIUM) throw new Error('chromium is not installed (scripts/setup.sh installs it)');
  const own = opts.netns ? undefined : loopbackOnlyNetns();
  const netns = opts.netns ?? own!.name;
  const profile = mkdtempSync(join(tmpdir(), 'capstan-chromium-'));
  const child: ChildProcess = spawn('nsenter', [`--net=/run/netns/${netns}`, CHROMIUM, 
    '--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--no-default-browser-check',
    '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-default-apps',
    '--disable-extensions', '--metrics-recording-only', '--mute-audio', `--user-data-dir=${profile}`,
    '--proxy-server=socks5://127.0.0.1:9', '--proxy-bypass-list=127.0.0.1', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    '--disable-features=DnsOverHttps,MediaRouter,OptimizationHints,Translate', '--dns-prefetch-disable',
    '--remote-debugging-pipe', 'about:blank',
  ], { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-4000); });
  const toBrowser = child.stdio[3] as Writable;
  const fromBrowser = child.stdio[4] as Readable;
  let nextId = 1;
  const pending = new Map<number, Pending>();
  let buf = '';
  let exited: Error | undefined;
  fromBrowser.on('data', (d: Buffer) => {
    buf += d.toString();
    let i: number;
    while ((i = buf.indexOf('\0')) >= 0) {
      const msg = JSON.parse(buf.slice(0, i)) as { id?: number; result?: unknown; error?: { message: string } };
      buf = buf.slice(i + 1);
      const p = msg.id !== undefined ? pending.get(msg.id) : undefined;
      if (!p) continue;
      pending.delete(msg.id!);
      if (msg.error) p.reject(new Error(`chromium: ${msg.error.message}`));
      else p.resolve(msg.result);
    }
  });
  child.on('exit', (code, signal) => {
    exited = new Error(`chromium exited (${code ?? signal}): ${stderr}`);
    for (const p of pending.values()) p.reject(exited);
    pending.clear();
  });
  const send = <T>(method: string, params: object = {}, sessionId?: string): Promise<T> => {
    if (exited) return Promise.reject(exited);
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      toBrowser.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
    });
  };
  try {
    await send('Browser.getVersion');
  } catch (e) {
    child.kill('SIGKILL');
    rmSync(profile, { recursive: true, force: true });
    own?.remove();
    throw e;
  }
  return {
    async newPage(url) {
      const { targetId } = await send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
      const { sessionId } = await send<{ sessionId: string }>('Target.attachToTarget', { targetId, flatten: true });
      const page: Page = {
        async evaluate<T>(expression: string) {
          const r = await send<{ result: { value?: unknown }; exceptionDetails?: { text: string; exception?: { description?: string } } }>(
            'Runtime.evaluate', { expression, returnByValue: true, awaitPromise: true }, sessionId);
          if (r.exceptionDetails) throw new Error(`in page: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
          return r.result.value as T;
        },
        async navigate(to: string) {
          const r = await send<{ errorText?: string }>('Page.navigate', { url: to }, sessionId);
          if (r.errorText) throw new Error(`navigating to ${to}: ${r.errorText}`);
        },
      };
      await page.navigate(url);
      return page;
    },
    async close() {
      if (!exited) {
        await send('Browser.close').catch(() => undefined);
        await new Promise<void>((r) => { if (exited) r(); else { child.once('exit', () => r()); setTimeout(() => { child.kill('SIGKILL'); r(); }, 5000).unref(); } });
      }
      rmSync(profile, { recursive: true, force: true });
      own?.remove();
    },
  };
}

/** Polls `expression` in `page` until it is truthy; returns its value. */
export async function waitInPage<T>(page: Page, expression: string, timeoutMs = 15_000, what = expression): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    last = await page.evaluate<T>(expression).catch((e: Error) => e);
    if (last && !(last instanceof Error)) return last as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: last ${last instanceof Error ? last.message : JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
