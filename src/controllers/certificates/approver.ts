// The CSR approver (kube-controller-manager's csrapproving): approves kubelet client
// certificate requests — a new node's from a bootstrapper (permission
// `certificatesigningrequests/nodeclient`) and a node's renewal of its own
// (`certificatesigningrequests/selfnodeclient`) — when the requester holds that permission.
// capstan also approves a node's request for a serving certificate covering only its own
// name and the addresses its Node reports (upstream leaves those to an external approver),
// and a node's request for its service proxy's, network agent's or DNS's client certificate
// (nodeComponentClientProblem; the node must hold `selfnodeclient`, i.e. be an active node).
import { isIP } from 'node:net';
import type { CertificateSigningRequest, Node } from '../../api/kinds.js';
import { nullTime } from '../../api/kinds.js';
import { rfc3339 } from '../../api/time.js';
import { isNotFound, resources, type SharedInformer } from '../../client/index.js';
import { CSRError } from '../../pki/csr.js';
import { QueueController, type ControllerContext } from '../framework.js';
import { isApproved, isDenied, isIssued, kubeletClientProblem, kubeletServingProblem, nodeComponentClientProblem, parsedRequest, signers, type CSR } from './csr.js';
import { nodeIdentities } from '../../client/index.js';

/** The node components' identities (not the kubelet's: that one is per node). */
const componentIdentities = (() => { const { proxy, networkAgent, dns } = nodeIdentities(''); return [proxy, networkAgent, dns]; })();

/** The requester is a node: `system:node:<name>` in `system:nodes`. */
const isNodeRequester = (csr: CSR) => (csr.spec.username ?? '').startsWith('system:node:') && (csr.spec.groups ?? []).includes('system:nodes');
import { subjectAccessReview, type AccessCheck } from './access.js';

interface Recognizer {
  /** Whether this kind of request is what the CSR is. */
  recognize(csr: CSR): boolean;
  /** Whether the requester may have it approved. */
  permitted(csr: CSR): Promise<boolean>;
  message: string;
}

export class CSRApprovingController extends QueueController {
  private csrs: SharedInformer<CertificateSigningRequest>;
  private nodes: SharedInformer<Node>;
  private recognizers: Recognizer[];

  constructor(ctx: ControllerContext, access: AccessCheck = subjectAccessReview(ctx.clients, ctx.log)) {
    super('csrapproving', ctx);
    this.csrs = ctx.informers.informerFor(resources.certificatesigningrequests);
    this.nodes = ctx.informers.informerFor(resources.nodes);
    this.csrs.addEventHandler({ onAdd: (c) => this.enqueue(c), onUpdate: (_o, c) => this.enqueue(c) });
    const parsed = (csr: CSR) => { try { return parsedRequest(csr); } catch (e) { if (e instanceof CSRError) return null; throw e; } };
    const kubeletClient = (csr: CSR) => {
      const req = parsed(csr);
      return !!req && csr.spec.signerName === signers.kubeletClient && kubeletClientProblem(req, csr.spec.usages ?? []) === null;
    };
    this.recognizers = [
      {
        recognize: (csr) => kubeletClient(csr) && parsed(csr)!.commonName === csr.spec.username,
        permitted: (csr) => access(csr, 'selfnodeclient'),
        message: 'Auto approving self kubelet client certificate after SubjectAccessReview.',
      },
      {
        recognize: kubeletClient,
        permitted: (csr) => access(csr, 'nodeclient'),
        message: 'Auto approving kubelet client certificate after SubjectAccessReview.',
      },
      {
        // A joined node's service proxy, network agent and DNS (capstan): the identities
        // upstream gives their DaemonSet pods through ServiceAccounts any node may run.
        recognize: (csr) => {
          const req = parsed(csr);
          return !!req && csr.spec.signerName === signers.apiserverClient && nodeComponentClientProblem(req, csr.spec.usages ?? [], componentIdentities) === null;
        },
        permitted: async (csr) => isNodeRequester(csr) && access(csr, 'selfnodeclient'),
        message: 'Auto approving node component client certificate after SubjectAccessReview.',
      },
      {
        recognize: (csr) => {
          const req = parsed(csr);
          return !!req && csr.spec.signerName === signers.kubeletServing && kubeletServingProblem(req, csr.spec.usages ?? []) === null;
        },
        permitted: async (csr) => this.ownNamesAndAddresses(csr),
        message: 'Auto approving kubelet serving certificate for the node\'s own name and addresses.',
      },
    ];
  }

  /** The requester is the node named in the request, and asks only for its Node's names and addresses. */
  private ownNamesAndAddresses(csr: CSR): boolean {
    // (Recognised requests name `system:node:*` in `system:nodes`.)
    const req = parsedRequest(csr);
    if (req.commonName !== csr.spec.username || !(csr.spec.groups ?? []).includes('system:nodes')) return false;
    const name = req.commonName.slice('system:node:'.length);
    const node = this.nodes.lister.get(undefined, name);
    // Thrown, so the request is retried with backoff: the Node may still be registering.
    if (!node) throw new Error(`node ${name} is not known yet`);
    const addresses = node.status?.addresses ?? [];
    const names = new Set([node.metadata.name ?? '', ...addresses.filter((a) => !isIP(a.address)).map((a) => a.address)]);
    const ips = new Set(addresses.filter((a) => isIP(a.address)).map((a) => a.address));
    return req.dnsNames.every((d) => names.has(d)) && req.ipAddresses.every((ip) => ips.has(ip));
  }

  async reconcile(name: string): Promise<void> {
    const csr = this.csrs.lister.get(undefined, name);
    if (!csr || isIssued(csr) || isApproved(csr) || isDenied(csr)) return;
    const tried: string[] = [];
    for (const r of this.recognizers) {
      if (!r.recognize(csr)) continue;
      tried.push(r.message);
      if (!await r.permitted(csr)) continue;
      await this.approve(csr, r.message);
      return;
    }
    // Recognised but not permitted: nothing to retry until the CSR or the permissions change.
    if (tried.length) this.log.info('recognized CSR but the requester is not permitted to have it approved', { csr: name, user: csr.spec.username });
  }

  private async approve(csr: CSR, message: string): Promise<void> {
    const next = structuredClone(csr);
    const now = rfc3339(new Date(this.ctx.clock.now()));
    next.status = { ...next.status, conditions: [...next.status?.conditions ?? [], { type: 'Approved', status: 'True', reason: 'AutoApproved', message, lastUpdateTime: now, lastTransitionTime: nullTime }] };
    try {
      await this.ctx.clients.resource(resources.certificatesigningrequests).update(next, 'approval');
      this.log.info('approved', { csr: csr.metadata.name, user: csr.spec.username });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }
}
