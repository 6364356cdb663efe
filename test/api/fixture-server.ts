// A test-only HTTP server that answers what kubectl reads before it explains or applies:
// /version, legacy discovery and the OpenAPI v3 documents from our generator. Object reads
// answer 404 so `apply --dry-run=client` takes the create path. It records every request;
// the options let a test serve damaged or missing documents.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OPENAPI_V2_PROTOBUF, openAPIV2Protobuf } from '../../src/api/openapi-v2.js';
import { groupVersionPath, openAPIDocument, openAPIIndex, type ServedResource } from '../../src/api/openapi.js';

export interface Fixture {
  url: string;
  requests: { method: string; url: string }[];
  close(): Promise<void>;
}

function resourceList(served: ServedResource[], group: string, version: string): object {
  const resources = [];
  for (const r of served.filter((x) => x.group === group && x.version === version)) {
    resources.push({ name: r.resource, singularName: r.kind.toLowerCase(), namespaced: r.namespaced, kind: r.kind, verbs: r.verbs });
    for (const s of r.subresources) {
      resources.push({ name: `${r.resource}/${s.name}`, singularName: '', namespaced: r.namespaced, group: s.group, version: s.version, kind: s.kind, verbs: s.verbs });
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources };
}

function groupList(served: ServedResource[]): object {
  const groups = new Map<string, string[]>();
  for (const r of served) {
    if (!r.group) continue;
    const vs = groups.get(r.group) ?? [];
    if (!vs.includes(r.version)) vs.push(r.version);
    groups.set(r.group, vs);
  }
  return {
    kind: 'APIGroupList', apiVersion: 'v1',
    groups: [...groups].map(([name, versions]) => {
      const vs = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
      return { name, versions: vs, preferredVersion: vs[0] };
    }),
  };
}

export interface FixtureOptions {
  /** Rewrites each OpenAPI v3 group-version document before it is served. */
  transformDocument?: (doc: any) => unknown;
  /** Also serve the definition-less /openapi/v2 document (default false, so v3 alone is tested). */
  openAPIV2?: boolean;
}

export async function startFixture(served: ServedResource[], options: FixtureOptions = {}): Promise<Fixture> {
  const { transformDocument = (doc: unknown) => doc, openAPIV2 = false } = options;
  const requests: Fixture['requests'] = [];
  const gvDocs = new Map<string, { group: string; version: string }>();
  for (const r of served) gvDocs.set(groupVersionPath(r.group, r.version), { group: r.group, version: r.version });
  const server: Server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '' });
    const url = new URL(req.url ?? '/', 'http://x');
    const reply = (code: number, body: unknown): void => {
      res.writeHead(code, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const p = url.pathname;
    if (p === '/version') return reply(200, { major: '1', minor: '32', gitVersion: 'v1.32.0', platform: 'linux/amd64' });
    if (p === '/api') return reply(200, { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [] });
    if (p === '/apis') return reply(200, groupList(served));
    if (p === '/openapi/v3') return reply(200, openAPIIndex(served, 'fixture'));
    if (p === '/openapi/v2' && openAPIV2) {
      res.writeHead(200, { 'Content-Type': OPENAPI_V2_PROTOBUF });
      return res.end(openAPIV2Protobuf());
    }
    const doc = p.startsWith('/openapi/v3/') ? gvDocs.get(p.slice('/openapi/v3/'.length)) : undefined;
    if (doc) return reply(200, transformDocument(structuredClone(openAPIDocument(doc.group, doc.version, served))));
    const m = /^\/api\/(v1)$/.exec(p) ?? /^\/apis\/([^/]+\/[^/]+)$/.exec(p);
    if (m) {
      const [g, v] = m[1].includes('/') ? m[1].split('/') : ['', m[1]];
      if (gvDocs.has(groupVersionPath(g, v))) return reply(200, resourceList(served, g, v));
    }
    reply(404, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `${p} not found`, reason: 'NotFound', code: 404 });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
