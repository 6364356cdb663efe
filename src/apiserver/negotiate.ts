// Content negotiation: which representation a client asked for in Accept, and how a request
// body is encoded. Protobuf is accepted in Accept lists (kubectl asks for it first) but
// answered with JSON, which clients take.

export type ResponseKind = 'json' | 'yaml' | 'table' | 'partial-metadata' | 'discovery-v2' | 'discovery-v2beta1';

interface MediaType {
  type: string;
  params: Record<string, string>;
}

// Clients send a handful of distinct Accept headers, each request asks up to three questions
// of its own: each header is taken apart once (the lists are only read).
const parsedAccept = new Map<string, MediaType[]>();
const MAX_PARSED = 256;

function parseAccept(header: string | undefined): MediaType[] {
  if (!header) return [];
  let types = parsedAccept.get(header);
  if (!types) {
    types = parseAcceptHeader(header);
    if (parsedAccept.size >= MAX_PARSED) parsedAccept.clear();
    parsedAccept.set(header, types);
  }
  return types;
}

function parseAcceptHeader(header: string): MediaType[] {
  return header.split(',').map((part) => {
    const [type, ...params] = part.trim().split(';');
    const p: Record<string, string> = {};
    for (const kv of params) {
      const [k, v] = kv.split('=');
      if (k && v !== undefined) p[k.trim()] = v.trim();
    }
    return { type: type.trim().toLowerCase(), params: p };
  });
}

export function negotiate(accept: string | undefined, opts: { discovery?: boolean } = {}): ResponseKind {
  for (const m of parseAccept(accept)) {
    const { g, v, as } = m.params;
    if (m.type === 'application/json' || m.type === '*/*' || m.type === 'application/*') {
      if (as === 'Table' && g === 'meta.k8s.io') return 'table';
      if ((as === 'PartialObjectMetadata' || as === 'PartialObjectMetadataList') && g === 'meta.k8s.io') return 'partial-metadata';
      if (as === 'APIGroupDiscoveryList' && g === 'apidiscovery.k8s.io') {
        if (!opts.discovery) continue;
        if (v === 'v2') return 'discovery-v2';
        if (v === 'v2beta1') return 'discovery-v2beta1';
        continue;
      }
      if (as) continue;
      return 'json';
    }
    if (m.type === 'application/yaml') return 'yaml';
  }
  return 'json';
}

const answerable = new Set(['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', '*/*', 'application/*']);

/** Whether Accept names anything a resource request can be answered with (protobuf gets JSON). */
export function acceptable(accept: string | undefined): boolean {
  const types = parseAccept(accept);
  return !types.length || types.some((m) => answerable.has(m.type));
}

export const contentTypes = {
  json: 'application/json',
  yaml: 'application/yaml',
  discoveryV2: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
  discoveryV2beta1: 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
};

export type BodyKind = 'json' | 'yaml' | 'protobuf' | 'json-patch' | 'merge-patch' | 'strategic-merge-patch' | 'apply-patch';

export function bodyKind(contentType: string | undefined): BodyKind | null {
  const t = (contentType ?? 'application/json').split(';')[0].trim().toLowerCase();
  switch (t) {
    case '': case 'application/json': return 'json';
    case 'application/yaml': return 'yaml';
    case 'application/vnd.kubernetes.protobuf': return 'protobuf';
    case 'application/json-patch+json': return 'json-patch';
    case 'application/merge-patch+json': return 'merge-patch';
    case 'application/strategic-merge-patch+json': return 'strategic-merge-patch';
    case 'application/apply-patch+yaml': case 'application/apply-patch+cbor': return 'apply-patch';
    default: return null;
  }
}
