// The nftables backend's fallbacks are counted and logged once: a partial sync the kernel
// refuses (the table was deleted by hand) falls back to a full sync that repairs it.
import t from 'tap';
import { Registry } from 'prom-client';
import { buildPlans, type ProxyConfig } from '../../src/proxy/model.js';
import { NftBackend } from '../../src/proxy/nft/backend.js';
import { desiredTable } from '../../src/proxy/nft/ruleset.js';
import { diffTables, fromTableState } from '../../src/proxy/nft/diff.js';
import { FakeNft, NftTable } from '../../src/nft/index.js';
import { fallbacks } from '../../src/log/fallback.js';
import { logger } from '../../src/log/index.js';

const cfg: ProxyConfig = { nodeName: 'node-a', clusterCIDR: '10.244.0.0/16' };

t.test('a refused partial sync falls back to a full sync, counted on /metrics and logged once', async (t) => {
  const registry = new Registry();
  const lines: Record<string, unknown>[] = [];
  const log = logger('proxy', {}, (l) => { lines.push(JSON.parse(l)); });
  const driver = new FakeNft();
  const backend = new NftBackend(driver, cfg, null, undefined, { retire: 'delete', fallback: fallbacks('proxy', log, registry) });
  const table = new NftTable(driver, { family: 'ip', name: 'capstan-proxy' });
  const web = { metadata: { namespace: 'default', name: 'web' }, spec: { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] } };
  const endpoints = (ip: string) => ({
    metadata: { namespace: 'default', name: 'web-1', labels: { 'kubernetes.io/service-name': 'web' } },
    addressType: 'IPv4', ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    endpoints: [{ addresses: [ip], conditions: { ready: true, serving: true, terminating: false }, nodeName: 'node-a' }],
  });
  const plans = (ip: string) => buildPlans([web], [endpoints(ip)], cfg);
  await backend.sync(plans('10.244.0.2'), { full: true });
  for (const ep of ['10.244.0.3', '10.244.0.4']) {
    await table.remove(); // someone deleted our table by hand
    await backend.sync(plans(ep), { full: false });
    t.same(diffTables(fromTableState(await table.list()), desiredTable(plans(ep), cfg, backend.genOf)), [], `repaired for ${ep}`);
  }
  const text = await registry.metrics();
  t.match(text, /^capstan_fallbacks_total\{component="proxy",reason="incremental-apply-failed-full-sync"\} 2$/m, 'both fallbacks counted');
  t.equal(lines.filter((l) => l.reason === 'incremental-apply-failed-full-sync').length, 1, 'logged once');
});
