// The Node authorizer (kube-apiserver's `--authorization-mode=Node`): a kubelet, user
// `system:node:<name>` in group `system:nodes`, may read the Secrets, ConfigMaps,
// PersistentVolumeClaims and PersistentVolumes, and create tokens for the ServiceAccounts,
// that pods bound to its node reference; it may read its own Node and use its own Lease, and
// list or watch pods only with the field selector spec.nodeName=<its name> (upstream's
// AuthorizeNodeWithSelectors; the selectors come from attributes.ts).
// Everything else gets no opinion here and falls through to the next authorizer (RBAC's
// `system:node` role), as upstream. The graph is fed from the watch cache, not rebuilt per
// request.
import type { Pod } from '../../api/kinds.js';
import type { KubeObject } from '../../api/object.js';
import type { WatchCache } from '../../storage/watch-cache.js';
import type { WatchEvent } from '../../storage/store.js';
import { fallbacks } from '../../log/fallback.js';
import type { UserInfo } from '../authn/index.js';
import { allow as allowVerdict, noOpinion, type Attributes, type DecisionAuthorizer, type RuleList, type Verdict } from './index.js';
import { NodeGraph, type VertexType } from './node-graph.js';
import { clusterRoles } from './bootstrap-policy/roles.js';
import { ruleAllows } from './rbac/rules.js';

/** upstream's NodeRules: what every node may do where access is not subdivided by the graph. */
const nodeRules = clusterRoles.find((r) => r.name === 'system:node')!.rules;

export const NODES_GROUP = 'system:nodes';
export const NODE_USER_PREFIX = 'system:node:';
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

const fallback = fallbacks('apiserver');

/** The node a user is, after upstream's nodeidentifier: `{ isNode, name }` (name '' when unknown). */
export function nodeIdentity(user: UserInfo): { isNode: boolean; name: string } {
  if (!user.groups.includes(NODES_GROUP) || !user.username.startsWith(NODE_USER_PREFIX)) return { isNode: false, name: '' };
  return { isNode: true, name: user.username.slice(NODE_USER_PREFIX.length) };
}

type Decision = Verdict;
type RequestInfo = Attributes;
const allow: Verdict = allowVerdict();

export class NodeAuthorizer implements DecisionAuthorizer {
  constructor(readonly graph: NodeGraph) {}

  /** Null when allowed, else the reason this authorizer has no opinion. */
  async authorize(user: UserInfo, info: RequestInfo): Promise<string | null> {
    const d = this.decide(user, info);
    return d.decision === 'allow' ? null : d.reason;
  }

  /** As upstream: a node's rules cannot be listed (incomplete); anyone else has none here. */
  rulesFor(user: UserInfo): RuleList {
    return { resourceRules: [], nonResourceRules: [], incomplete: nodeIdentity(user).isNode };
  }

  decide(user: UserInfo, info: RequestInfo): Decision {
    const { isNode, name: node } = nodeIdentity(user);
    if (!isNode) return noOpinion();
    if (!node) return noOpinion(`unknown node for user "${user.username}"`);
    if (!info.isResourceRequest) return noOpinion();
    const gr = `${info.group}/${info.resource}`;
    switch (gr) {
      case '/secrets': return this.readNamespaced(node, 'secret', info);
      case '/configmaps': return this.readNamespaced(node, 'configmap', info);
      case '/persistentvolumeclaims':
        if (info.subresource === 'status') return this.statusUpdate(node, info);
        return this.get(info, () => this.related(node, 'pvc', info));
      case '/persistentvolumes':
        return this.get(info, () => this.graph.reachesVolume(node, info.name) ? allow : unrelated(node));
      case '/serviceaccounts': return this.createToken(node, info);
      case 'coordination.k8s.io/leases': return lease(node, info);
      // AuthorizeNodeWithSelectors (on by default since 1.32): nodes and pods are subdivided
      // too, and never fall through to the node rules.
      case '/nodes': return ownNode(node, info);
      case '/pods': return this.pod(node, info);
    }
    // Access to everything else is not subdivided: the static node rules decide.
    return nodeRules.some((r) => ruleAllows(r, info)) ? allow : noOpinion();
  }

  private readNamespaced(node: string, type: VertexType, info: RequestInfo): Decision {
    if (!['get', 'list', 'watch'].includes(info.verb)) return noOpinion('can only read resources of this type');
    if (info.subresource) return noOpinion('cannot read subresource');
    if (!info.namespace) return noOpinion('can only read namespaced object of this type');
    return this.related(node, type, info);
  }

  private get(info: RequestInfo, check: () => Decision): Decision {
    if (info.verb !== 'get') return noOpinion('can only get individual resources of this type');
    if (info.subresource) return noOpinion('cannot get subresource');
    if (!info.name) return noOpinion('No Object name found');
    return check();
  }

  private statusUpdate(node: string, info: RequestInfo): Decision {
    if (info.verb !== 'update' && info.verb !== 'patch') return noOpinion('can only get/update/patch this type');
    return this.related(node, 'pvc', info);
  }

  private related(node: string, type: VertexType, info: RequestInfo): Decision {
    if (!info.name) return noOpinion('No Object name found');
    return this.graph.reaches(node, type, info.namespace, info.name) ? allow : unrelated(node);
  }

  private createToken(node: string, info: RequestInfo): Decision {
    if (info.verb !== 'create' || !info.name) return noOpinion('can only create tokens for individual service accounts');
    if (info.subresource !== 'token') return noOpinion('can only create token subresource of serviceaccount');
    return this.graph.reaches(node, 'serviceaccount', info.namespace, info.name) ? allow : unrelated(node);
  }

  private pod(node: string, info: RequestInfo): Decision {
    switch (info.subresource) {
      case '':
        if (info.verb === 'get') return this.get(info, () => this.related(node, 'pod', info));
        if (info.verb === 'list' || info.verb === 'watch') {
          if (info.fieldSelector?.some((r) => r.field === 'spec.nodeName' && r.op === '=' && r.value === node)) return allow;
          // One pod, named by metadata.name, known to be bound to the node.
          if (info.name) return this.related(node, 'pod', info);
          return noOpinion('can only list/watch pods with spec.nodeName field selector');
        }
        // Mirror pods; NodeRestriction limits them to the node's own.
        if (info.verb === 'create' || info.verb === 'delete') return allow;
        return noOpinion();
      case 'status': return info.verb === 'update' || info.verb === 'patch' ? allow : noOpinion();
      case 'eviction': return info.verb === 'create' ? allow : noOpinion();
    }
    return noOpinion();
  }
}

const unrelated = (node: string): Decision => noOpinion(`no relationship found between node '${node}' and this object`);

function lease(node: string, info: RequestInfo): Decision {
  if (!['get', 'create', 'update', 'patch', 'delete'].includes(info.verb)) return noOpinion('can only get, create, update, patch, or delete a node lease');
  if (info.namespace !== NODE_LEASE_NAMESPACE) return noOpinion(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
  // On create the name is in the body: NodeRestriction checks it.
  if (info.verb !== 'create' && info.name !== node) return noOpinion('can only access node lease with the same name as the requesting node');
  return allow;
}

function ownNode(node: string, info: RequestInfo): Decision {
  if (info.subresource === 'status') return info.verb === 'update' || info.verb === 'patch' ? allow : noOpinion();
  if (info.subresource) return noOpinion();
  // Writes are limited to the node's own object by NodeRestriction.
  if (['create', 'update', 'patch'].includes(info.verb)) return allow;
  if (['get', 'list', 'watch'].includes(info.verb)) {
    if (info.name === node) return allow;
    if (!info.name) return noOpinion(`node '${node}' cannot read all nodes, only its own Node object`);
    return noOpinion(`node '${node}' cannot read '${info.name}', only its own Node object`);
  }
  return noOpinion();
}

/**
 * Keeps `graph` current from the watch cache's pods (and claims, when the server has them):
 * one snapshot, then every event. `decode` turns stored bytes into the internal object
 * (the registries' decoders, so storage transforms stay theirs). Returns the stop function.
 */
export function feedNodeGraph(graph: NodeGraph, cache: WatchCache, decoders: { pods: Decoder; claims?: Decoder }): () => void {
  const feeds: Array<{ prefix: string; apply: (ev: WatchEvent) => void }> = [
    { prefix: '/registry/pods/', apply: (ev) => podEvent(graph, ev, decoders.pods) },
  ];
  const claims = decoders.claims;
  if (claims) feeds.push({ prefix: '/registry/persistentvolumeclaims/', apply: (ev) => claimEvent(graph, ev, claims) });
  let stops: Array<() => void> = [];
  const start = () => {
    graph.clear();
    stops = feeds.map(({ prefix, apply }) => {
      const { items, revision } = cache.snapshot(prefix);
      for (const ev of items) apply(ev);
      return cache.subscribe(prefix, revision, (ev) => {
        // History lost (the cache relisted): rebuild from its state.
        if (ev.revision === -1) { restart(); return; }
        apply(ev);
      });
    });
  };
  const stop = () => { for (const s of stops) s(); stops = []; };
  const restart = () => { fallback('node-graph-rebuilt'); stop(); queueMicrotask(start); };
  start();
  return stop;
}

export type Decoder = (value: Buffer, revision: number, key: string) => KubeObject;

function podEvent(graph: NodeGraph, ev: WatchEvent, decode: Decoder): void {
  const key = ev.key.slice('/registry/pods/'.length);
  if (ev.type === 'DELETE') return graph.deletePod(key);
  try {
    graph.setPod(decode(ev.value, ev.revision, ev.key) as Pod);
  } catch (error) {
    // Fail closed: a pod that cannot be read grants nothing.
    graph.deletePod(key);
    fallback('node-graph-undecodable', { error, once: ev.key });
  }
}

function claimEvent(graph: NodeGraph, ev: WatchEvent, decode: Decoder): void {
  const [ns, name] = ev.key.slice('/registry/persistentvolumeclaims/'.length).split('/');
  if (ev.type === 'DELETE') return graph.setClaim(ns, name, undefined);
  try {
    graph.setClaim(ns, name, decode(ev.value, ev.revision, ev.key).spec?.volumeName || undefined);
  } catch (error) {
    fallback('node-graph-undecodable', { error, once: ev.key });
  }
}

/**
 * A Node authorizer with its graph fed from a started watch cache with the registries'
 * decoders (tests; server.ts builds its own and starts the feed after the cache). stop() ends the feed.
 */
export function nodeAuthorizerFor(cache: WatchCache, registries: { get(group: string, resource: string): { decode: Decoder } | undefined }): { authorizer: NodeAuthorizer; stop: () => void } {
  const graph = new NodeGraph();
  const pods = registries.get('', 'pods')!;
  const claims = registries.get('', 'persistentvolumeclaims');
  const stop = feedNodeGraph(graph, cache, { pods: (v, r, k) => pods.decode(v, r, k), claims: claims && ((v, r, k) => claims.decode(v, r, k)) });
  return { authorizer: new NodeAuthorizer(graph), stop };
}
