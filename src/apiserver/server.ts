// The API server: HTTPS with authentication (authn/) in front of the request pipeline, backed
// by one Store and its watch cache.
import { isIPv6, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Store } from '../storage/store.js';
import { WatchCache } from '../storage/watch-cache.js';
import { forgetDecoded } from './encoded-once.js';
import { logger, type Logger } from '../log/index.js';
import { buildAuthentication, ephemeralServiceAccountKeys, registryObjectGetter, type Authenticator, type ServiceAccountKeys } from './authn/index.js';
import { superuserDecider, unionAuthorizer, type Authorizer, type DecisionAuthorizer } from './authz/index.js';
import { buildAuthorizer, DEFAULT_AUTHORIZATION_MODE, parseAuthorizationModes, type AuthorizationMode } from './authz/modes.js';
import { PolicyIndex } from './authz/rbac/policy-index.js';
import { RBACAuthorizer } from './authz/rbac/authorizer.js';
import { PolicyFeed } from './authz/rbac/feed.js';
import { EscalationGuard } from './authz/rbac/escalation.js';
import { NodeAuthorizer, feedNodeGraph } from './authz/node.js';
import { NodeGraph } from './authz/node-graph.js';
import { reconcileBootstrapPolicy } from './authz/bootstrap-policy/reconcile.js';
import { accessReviewResources } from './handlers/access-review.js';
import { namespaceLifecycle, type AdmissionChain } from './admission.js';
import { admissionChain } from './admission/plugins.js';
import { limitRanger } from './admission/limit-ranger.js';
import { podSecurity } from './admission/podsecurity/index.js';
import { priority } from './admission/priority.js';
import { defaultTolerationSeconds, type TolerationSeconds } from './admission/default-toleration-seconds.js';
import { defaultStorageClass } from './admission/default-storage-class.js';
import { pvcResize } from './admission/pvc-resize.js';
import { resourceQuota } from './admission/resource-quota.js';
import { mutatingWebhooks, validatingWebhooks } from './admission/webhook/index.js';
import { validatingAdmissionPolicy } from './admission/policy/validating.js';
import { PolicyStatusController } from './admission/policy/typecheck-controller.js';
import { serviceAccountAdmission } from './admission/serviceaccount.js';
import { nodeRestriction } from './admission/node-restriction.js';
import { Discovery, resourceInfos } from './discovery.js';
import { createHandler, createUpgradeHandler, type HandlerDeps, type PathHandler } from './handler.js';
import type { KubeObject } from '../api/object.js';
import { fieldTracker } from './managed-fields.js';
import { APIMetrics } from './metrics.js';
import { CountedStore } from './counted-store.js';
import { TimedStore } from './trace/timed-store.js';
import type { TraceOptions } from './trace/report.js';
import { ResourceTransformers, type EncryptionConfiguration } from './encryption/index.js';
import { buildRegistries, type Registries } from './registry/index.js';
import { bootstrap } from './bootstrap.js';
import { ConnectionLimits } from './connection-limits.js';
import { APIListener, connectionOf, defaultMaxStreamsPerConnection } from './listener.js';
import { HealthEndpoints, logCheck, pingCheck, postStartHookCheck, shutdownCheck, storeCheck } from './healthz.js';
import { bindFallbacks } from '../log/fallback.js';
import { CRDController } from './crd/controller.js';
import { certificatePlugins } from './admission/certificates.js';
import { MetricsScraper, metricsResources } from './metrics-api/index.js';
import '../api/schemas.js';
import { consistentSource } from './read-source.js';

export interface APIServerOptions {
  store: Store;
  bindAddress?: string;
  /** 0 picks a free port. */
  port?: number;
  /** The address other components and the `kubernetes` Service use to reach this server. */
  advertiseAddress?: string;
  tls: { certPem: string; keyPem: string; caPem: string };
  tokenFile?: string;
  /** ServiceAccount token keys; without them a key for this process only (tokens die with it). */
  serviceAccountKeys?: ServiceAccountKeys;
  /** --service-account-issuer (the first signs); default https://kubernetes.default.svc.cluster.local. */
  serviceAccountIssuers?: string[];
  /** --service-account-jwks-uri. */
  serviceAccountJWKSURI?: string;
  /** --service-account-max-token-expiration, seconds. */
  serviceAccountMaxTokenExpirationSeconds?: number;
  /** --service-account-extend-token-expiration (default true). */
  serviceAccountExtendTokenExpiration?: boolean;
  /** --api-audiences; default the issuer. */
  apiAudiences?: string[];
  /** --anonymous-auth (default true). Switched off with the AlwaysAllow authorizer, as kube-apiserver does. */
  anonymousAuth?: boolean;
  /** An authorizer built elsewhere, asked after system:masters instead of --authorization-mode's chain (tests). */
  authorizer?: DecisionAuthorizer;
  serviceClusterIPRange?: string;
  serviceNodePortRange?: string;
  log?: Logger;
  /** Watch bookmark interval (tests shorten it). */
  bookmarkIntervalMs?: number;
  /** Events the watch cache keeps for watches that resume from a resourceVersion (tests shrink it). */
  watchCacheCapacity?: number;
  /** The client certificate presented to kubelets for pods/log and pods/exec (kube-apiserver-kubelet-client). */
  kubeletClient?: { certPem: string; keyPem: string };
  /** Listening sockets opened elsewhere (e.g. inherited from another network namespace) whose connections this server also serves; stop() closes them. */
  extraListeners?: NetServer[];
  /** Encryption at rest of the resources it names (`--encryption-provider-config`). */
  encryption?: EncryptionConfiguration;
  /** Connection timeouts and limits (tests shorten them); see connectionDefaults. */
  connections?: Partial<ConnectionOptions>;
  /** Admission plugins by name to leave out (kube-apiserver's --disable-admission-plugins). */
  disableAdmissionPlugins?: string[];
  /** Admission plugins to run besides the default ones (--enable-admission-plugins). */
  enableAdmissionPlugins?: string[];
  /** DefaultTolerationSeconds' --default-not-ready-toleration-seconds / --default-unreachable-toleration-seconds (300). */
  defaultTolerationSeconds?: Partial<TolerationSeconds>;
  /** `--authorization-mode`: comma list of AlwaysAllow, AlwaysDeny, RBAC, Node (default Node,RBAC). */
  authorizationMode?: string;
  /** How often metrics.k8s.io scrapes the kubelets while in use (metrics-server's --metric-resolution, 15 s). */
  metricResolutionMs?: number;
  /** Authorizers built elsewhere for modes this server does not build itself (Node). */
  authorizers?: Partial<Record<AuthorizationMode, DecisionAuthorizer>>;
  /** --server-timing and --slow-request-threshold (src/apiserver/trace). */
  trace?: TraceOptions;
  /** `--http2` (default true): offer HTTP/2 by ALPN besides HTTP/1.1 (listener.ts). */
  http2?: boolean;
  /** `--http2-max-streams-per-connection` (default 100, as kube-apiserver). */
  http2MaxStreamsPerConnection?: number;
}

export interface ConnectionOptions {
  /** A TCP connection must finish its TLS handshake, the client never silent for this long. */
  handshakeTimeoutMs: number;
  /** A request's headers must arrive within this of its start (a half-open request is closed). */
  headersTimeoutMs: number;
  /**
   * An idle keep-alive connection is closed after this: longer than clients keep idle connections
   * in their pools (Go's transport, so kubectl and client-go: 90 s; src/client: 60 s), so a client
   * closes its idle connection first and never reuses one the server is closing (a reset).
   */
  keepAliveTimeoutMs: number;
  /** How often Node checks connections against headersTimeoutMs. */
  checkIntervalMs: number;
  /** Connections that have not authenticated, kept at most (the oldest are closed first). */
  maxUnauthenticated: number;
}

/** Defaults; Node leaves the headers timeout unset once requestTimeout is 0. */
export const connectionDefaults: ConnectionOptions = {
  handshakeTimeoutMs: 10_000, headersTimeoutMs: 60_000, keepAliveTimeoutMs: 120_000, checkIntervalMs: 5_000, maxUnauthenticated: 1_000,
};

export const kubernetesVersion = { major: '1', minor: '32', gitVersion: 'v1.32.0-capstan', gitCommit: 'capstan', gitTreeState: 'clean', buildDate: '2026-11-30T00:00:00Z', goVersion: 'node', compiler: 'capstan', platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}` };

export class APIServer {
  readonly registries: Registries;
  private cache: WatchCache;
  private listener?: APIListener;
  private log: Logger;
  private stopping = false;
  private upgraded = new Set<Duplex>();
  private limits?: ConnectionLimits;
  private metrics = new APIMetrics();
  readonly rbac = new RBACAuthorizer(new PolicyIndex());
  readonly authorizer: Authorizer;
  private modes: AuthorizationMode[];
  private policyFeed: PolicyFeed;
  /** The Node authorizer's graph of what pods on each node reference, fed from the watch cache. */
  private nodeGraph = new NodeGraph();
  private node = new NodeAuthorizer(this.nodeGraph);
  private stopNodeGraph?: () => void;
  /** Serves custom resources as their CustomResourceDefinitions come and go. */
  crds?: CRDController;
  policyStatus?: PolicyStatusController;
  readonly admission: AdmissionChain;
  private metricsScraper?: MetricsScraper;
  private pathHandlers: PathHandler[] = [];

  constructor(private opts: APIServerOptions) {
    this.log = opts.log ?? logger('apiserver');
    const timed = new TimedStore(opts.store, this.metrics.storage);
    const store = new CountedStore(timed, this.metrics.storageLists);
    const escalation = new EscalationGuard(this.rbac);
    this.registries = buildRegistries(store, {
      serviceClusterIPRange: opts.serviceClusterIPRange ?? '10.96.0.0/12',
      serviceNodePortRange: opts.serviceNodePortRange ?? '30000-32767',
      transformers: opts.encryption && new ResourceTransformers(opts.encryption, (resource, op) =>
        this.metrics.transformations.inc({ resource, transformation_type: op.transformationType, transformer_prefix: op.transformerPrefix, status: op.status })),
      escalation,
    });
    const modes = this.modes = opts.authorizer ? [] : parseAuthorizationModes(opts.authorizationMode ?? DEFAULT_AUTHORIZATION_MODE);
    this.authorizer = escalation.authorizer = opts.authorizer
      ? unionAuthorizer([superuserDecider, opts.authorizer])
      : buildAuthorizer(modes, { RBAC: this.rbac, Node: this.node, ...opts.authorizers });
    this.cache = new WatchCache(store, '/registry/', opts.watchCacheCapacity);
    this.cache.onSuperseded = (ev) => forgetDecoded(ev.value);
    this.policyFeed = new PolicyFeed(this.rbac.index, this.cache, (resource, ev) => this.registries.get('rbac.authorization.k8s.io', resource)!.decode(ev.value, ev.revision, ev.key));
    this.metrics.waitingReads = () => this.cache.waitingReads;
    const reg = (group: string, resource: string) => this.registries.get(group, resource)!;
    // One line per plugin; admissionChain orders them as kube-apiserver does.
    this.admission = admissionChain([
      namespaceLifecycle(reg('', 'namespaces'), consistentSource(this.cache, reg('', 'namespaces').store)),
      serviceAccountAdmission(reg('', 'serviceaccounts')),
      nodeRestriction(reg('', 'pods'), reg('', 'nodes')),
      limitRanger(reg('', 'limitranges'), consistentSource(this.cache, reg('', 'limitranges').store)),
      podSecurity(reg('', 'namespaces')),
      priority(reg('scheduling.k8s.io', 'priorityclasses'), consistentSource(this.cache, reg('scheduling.k8s.io', 'priorityclasses').store)),
      defaultTolerationSeconds(opts.defaultTolerationSeconds),
      defaultStorageClass(reg('storage.k8s.io', 'storageclasses'), consistentSource(this.cache, reg('storage.k8s.io', 'storageclasses').store)),
      pvcResize(reg('storage.k8s.io', 'storageclasses')),
      resourceQuota(reg('', 'resourcequotas'), consistentSource(this.cache, reg('', 'resourcequotas').store)),
      mutatingWebhooks(reg('admissionregistration.k8s.io', 'mutatingwebhookconfigurations'), { registries: this.registries, source: this.cache, log: this.log, authorizer: this.authorizer }),
      validatingAdmissionPolicy({ registries: this.registries, source: this.cache, authorizer: this.authorizer, log: this.log }),
      validatingWebhooks(reg('admissionregistration.k8s.io', 'validatingwebhookconfigurations'), { registries: this.registries, source: this.cache, log: this.log, authorizer: this.authorizer }),
      ...certificatePlugins(this.authorizer),
    ], { enable: opts.enableAdmissionPlugins, disable: opts.disableAdmissionPlugins });
  }

  async start(): Promise<{ port: number; address: string }> {
    await this.cache.start();
    this.policyFeed.start();
    const pods = this.registries.get('', 'pods')!;
    const claims = this.registries.get('', 'persistentvolumeclaims')!;
    this.stopNodeGraph = feedNodeGraph(this.nodeGraph, this.cache, { pods: (value, revision, key) => pods.decode(value, revision, key), claims: (value, revision, key) => claims.decode(value, revision, key) });
    const conn = { ...connectionDefaults, ...this.opts.connections };
    const limits = this.limits = new ConnectionLimits({ maxUnauthenticated: conn.maxUnauthenticated, handshakeTimeoutMs: conn.handshakeTimeoutMs });
    const authz = this.authorizer;
    let anonymous = this.opts.anonymousAuth ?? true;
    if (anonymous && this.modes.includes('AlwaysAllow')) {
      this.log.warn('AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting AnonymousAuth to false. You should use a different authorizer');
      anonymous = false;
    }
    const authentication = buildAuthentication({
      tokenFile: this.opts.tokenFile, keys: this.opts.serviceAccountKeys ?? ephemeralServiceAccountKeys(),
      issuers: this.opts.serviceAccountIssuers, apiAudiences: this.opts.apiAudiences, jwksURI: this.opts.serviceAccountJWKSURI,
      maxTokenExpirationSeconds: this.opts.serviceAccountMaxTokenExpirationSeconds, extendTokenExpiration: this.opts.serviceAccountExtendTokenExpiration,
      anonymous, objects: registryObjectGetter(this.registries, this.cache), log: this.log,
    });
    // The pipeline authenticates each request once; credentials that get in (not anonymity)
    // also exempt its connection from the cap on unauthenticated connections.
    const authn = authentication.stage(authz, undefined, (inner): Authenticator => ({
      async authenticate(req) {
        const result = await inner.authenticate(req);
        if (!result.anonymous) limits.trust(connectionOf(req));
        return result;
      },
    }));
    const served = resourceInfos(this.registries.all, [
      { group: 'authentication.k8s.io', version: 'v1', resource: 'selfsubjectreviews', kind: 'SelfSubjectReview', namespaced: false, verbs: ['create'] },
      { group: 'authentication.k8s.io', version: 'v1', resource: 'tokenreviews', kind: 'TokenReview', namespaced: false, verbs: ['create'] },
      ...accessReviewResources,
      ...metricsResources,
    ]);
    // Custom resources' entries are added to and removed from `served` in place as their
    // definitions come and go; discovery and OpenAPI read it on every request.
    this.crds = new CRDController(this.registries, served, this.cache, this.log);
    this.crds.start();
    this.policyStatus = new PolicyStatusController(this.registries, this.cache, this.log);
    this.policyStatus.start();
    let port = this.opts.port ?? 6443;
    const advertise = this.opts.advertiseAddress ?? (this.opts.bindAddress && this.opts.bindAddress !== '0.0.0.0' ? this.opts.bindAddress : '127.0.0.1');
    // The decoders and stores count their fallbacks on this registry (the last server started
    // in a process, when tests run several).
    bindFallbacks('apiserver', this.metrics.registry, this.log);
    let policyReconciled = false;
    const bootstrapRoles = postStartHookCheck('rbac/bootstrap-roles', () => policyReconciled);
    const handlerDeps: HandlerDeps = {
      registries: this.registries,
      cache: this.cache,
      authn,
      authz,
      tokens: authentication,
      oidc: authentication.oidc(() => `${isIPv6(advertise) ? `[${advertise}]` : advertise}:${port}`),
      admission: this.admission,
      fields: fieldTracker(),
      discovery: new Discovery(served, () => `${advertise}:${port}`),
      served,
      metrics: this.metrics,
      log: this.log,
      version: kubernetesVersion,
      health: new HealthEndpoints({
        healthz: [pingCheck, logCheck, storeCheck(this.opts.store), bootstrapRoles],
        livez: [pingCheck, logCheck, storeCheck(this.opts.store), bootstrapRoles],
        readyz: [pingCheck, logCheck, storeCheck(this.opts.store), bootstrapRoles, shutdownCheck(() => this.stopping)],
      }, this.log),
      bookmarkIntervalMs: this.opts.bookmarkIntervalMs,
      trace: this.opts.trace,
      kubelet: this.opts.kubeletClient ? { ...this.opts.kubeletClient, caPem: this.opts.tls.caPem } : undefined,
      pathHandlers: this.pathHandlers,
      metricsScraper: this.metricsScraper = this.opts.kubeletClient && new MetricsScraper({
        kubelet: { ...this.opts.kubeletClient, caPem: this.opts.tls.caPem }, log: this.log, resolutionMs: this.opts.metricResolutionMs,
        nodes: async () => (await this.registries.get('', 'nodes')!.list({ source: this.cache })).items,
      }),
    };
    const handler = createHandler(handlerDeps);
    const upgrade = createUpgradeHandler(handlerDeps);
    const listener = this.listener = new APIListener({
      tls: this.opts.tls, ...conn, http2: this.opts.http2 ?? true,
      maxStreamsPerConnection: this.opts.http2MaxStreamsPerConnection || defaultMaxStreamsPerConnection,
      onConnection: (protocol) => this.metrics.connections.inc({ protocol }),
    }, (req, res) => void handler(req, res));
    const server = listener.server;
    server.on('connection', (socket: Socket) => limits.accepted(socket));
    server.on('secureConnection', (socket) => limits.handshaken(socket));
    // Upgrade requests (exec over WebSocket/SPDY) come here instead of the request handler.
    server.on('upgrade', (req, socket, head) => {
      // Upgraded streams are out of the HTTP server's bookkeeping: stop() ends them itself.
      this.upgraded.add(socket);
      socket.once('close', () => this.upgraded.delete(socket));
      void upgrade(req, socket, head);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, this.opts.bindAddress ?? '127.0.0.1', () => resolve());
    });
    port = (server.address() as AddressInfo).port;
    for (const l of this.opts.extraListeners ?? []) l.on('connection', (socket) => server.emit('connection', socket));
    const self = { user: { username: 'system:apiserver', groups: ['system:masters'] }, dryRun: false, now: new Date() };
    await bootstrap(this.registries, self, { address: advertise, port });
    await reconcileBootstrapPolicy(this.registries, self);
    policyReconciled = true;
    this.log.info('serving', { address: this.opts.bindAddress ?? '127.0.0.1', port });
    return { port, address: advertise };
  }

  /** Serves GETs under `h.prefix` (a non-resource URL: RBAC's nonResourceURLs decide who may). */
  addPathHandler(h: PathHandler): void {
    this.pathHandlers.push(h);
  }

  /**
   * A built-in resource read from the watch cache, for in-process readers (the lab view):
   * `list` decodes the cached objects; `subscribe` calls `fn` after every later change.
   */
  cachedObjects(group: string, resource: string): { list(): Promise<KubeObject[]>; subscribe(fn: () => void): () => void } {
    const reg = this.registries.get(group, resource);
    if (!reg) throw new Error(`no resource ${resource}${group ? `.${group}` : ''}`);
    return {
      list: async () => (await reg.list({ source: this.cache })).items,
      subscribe: (fn) => this.cache.subscribe(reg.prefix, this.cache.snapshot(reg.prefix).revision, () => fn()),
    };
  }

  /** Closes every open connection (watches included) while the server keeps listening. */
  dropConnections(): void {
    this.listener?.closeAllConnections();
  }

  /** Connections not yet authenticated, and how many were closed for the limit. */
  get connectionStats(): { unauthenticated: number; closedForLimit: number } {
    return this.limits?.stats ?? { unauthenticated: 0, closedForLimit: 0 };
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.policyFeed.stop();
    this.stopNodeGraph?.();
    this.crds?.stop();
    this.policyStatus?.stop();
    this.metricsScraper?.stop();
    await this.cache.stop();
    for (const l of this.opts.extraListeners ?? []) l.close();
    if (this.listener) {
      for (const socket of this.upgraded) socket.destroy();
      await this.listener.close();
    }
  }
}
