// A plain-HTTP GET made from inside a network namespace (a port kubectl port-forward opened
// on that namespace's loopback): status, body length, its SHA-256, and the body when short.
import { spawn } from 'node:child_process';

export function httpGetIn(netns: string, url: string): Promise<{ status: number; length: number; sha256: string; body: string }> {
  const script = `require('http').get(process.argv[1], (r) => { const h = require('crypto').createHash('sha256'); let n = 0, b = '';
    r.on('data', (d) => { h.update(d); n += d.length; if (b.length < 200) b += d; });
    r.on('end', () => console.log(JSON.stringify({ status: r.statusCode, length: n, sha256: h.digest('hex'), body: n < 200 ? b : '' }))); })
    .on('error', (e) => { console.error(e.message); process.exit(1); });`;
  return new Promise((resolve, reject) => {
    const child = spawn('nsenter', [`--net=/run/netns/${netns}`, process.execPath, '-e', script, url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
    child.once('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`GET ${url}: ${err.trim()}`))));
  });
}
