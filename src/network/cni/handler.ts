// ADD, DEL and CHECK as the agent runs them for the thin plugin. One request in, one
// (exit code, stdout) out; never throws.
import { existsSync } from 'node:fs';
import type { Logger } from '../../log/index.js';
import { NetlinkError, RT_SCOPE, type Netlink } from '../../netlink/index.js';
import { formatCidr, type Cidr } from '../cidr.js';
import { IPAMExhaustedError, type IPAM } from '../ipam.js';
import { HOST_VETH_MAC, POD_GATEWAY, POD_ROUTE_PROTOCOL, hostVethName, podNetworkOps, randomPodMac } from '../podnet.js';
import { LOOPBACK_TYPE, SUPPORTED_VERSIONS, parseEnv, parseNetConf, sniffVersion, type CNIEnv, type NetConf } from './config.js';
import { CNIError, CNI_ERROR } from './errors.js';
import { loopbackResult, podResult } from './result.js';
import type { CNIRequest } from './wire.js';

export interface CNIHandlerContext {
  netlink: Netlink;
  ipam: IPAM;
  /** The node's network namespace, where host veths and pod routes live (null: the agent's own). */
  hostNetns: string | null;
  /** The node's spec.podCIDR, once known. */
  podCIDR(): Cidr | undefined;
  mtu: number;
  log: Logger;
}

export interface CNIReply {
  code: number;
  stdout: string;
}

export async function handleRequest(ctx: CNIHandlerContext, req: CNIRequest): Promise<CNIReply> {
  let version = sniffVersion(req.stdin);
  let env: CNIEnv | undefined;
  try {
    env = parseEnv(req.env);
    if (env.command === 'VERSION') {
      return { code: 0, stdout: `${JSON.stringify({ cniVersion: '1.0.0', supportedVersions: SUPPORTED_VERSIONS })}\n` };
    }
    const conf = parseNetConf(req.stdin);
    version = conf.cniVersion;
    const netns = reachableNetns(env.netns, req.pid);
    const loopback = conf.type === LOOPBACK_TYPE;
    switch (env.command) {
      case 'ADD': return ok(loopback ? await addLoopback(ctx, conf, env, netns) : await add(ctx, conf, env, netns));
      case 'DEL': if (!loopback) await del(ctx, env); return { code: 0, stdout: '' };
      case 'CHECK':
        if (conf.cniVersion === '0.3.0' || conf.cniVersion === '0.3.1') throw new CNIError(CNI_ERROR.incompatibleVersion, `CHECK is not defined for CNI ${conf.cniVersion}`);
        await (loopback ? checkLoopback(ctx, netns) : check(ctx, env, netns));
        return { code: 0, stdout: '' };
    }
  } catch (e) {
    const err = asCNIError(e);
    ctx.log.warn('CNI request failed', { command: env?.command, containerID: env?.containerID, code: err.code, error: err.message, details: err.details });
    return { code: 1, stdout: `${JSON.stringify(err.toJSON(version))}\n` };
  }
}

const ok = (result: Record<string, unknown>): CNIReply => ({ code: 0, stdout: `${JSON.stringify(result)}\n` });

function asCNIError(e: unknown): CNIError {
  if (e instanceof CNIError) return e;
  if (e instanceof IPAMExhaustedError) return new CNIError(CNI_ERROR.addressesExhausted, e.message);
  if (e instanceof NetlinkError) return new CNIError(CNI_ERROR.internal, 'pod network setup failed', `${e.code}: ${e.message}`);
  const code = (e as NodeJS.ErrnoException)?.code;
  if (code && /^E[A-Z]+$/.test(code)) return new CNIError(CNI_ERROR.io, 'I/O error', `${code}: ${(e as Error).message}`);
  return new CNIError(CNI_ERROR.internal, 'internal error', (e as Error)?.message ?? String(e));
}

/**
 * containerd may mount pod namespaces inside its own mount namespace; the plugin it started
 * is in there too, so its /proc/<pid>/root sees what containerd sees.
 */
function reachableNetns(netns: string, pid: number | undefined): string {
  if (!netns || !pid) return netns;
  const viaPlugin = `/proc/${pid}/root${netns}`;
  return existsSync(viaPlugin) ? viaPlugin : netns;
}

function podOf(env: CNIEnv): { namespace?: string; name?: string } {
  return { namespace: env.args.K8S_POD_NAMESPACE, name: env.args.K8S_POD_NAME };
}

async function add(ctx: CNIHandlerContext, conf: NetConf, env: CNIEnv, netns: string): Promise<Record<string, unknown>> {
  const block = conf.podCIDR ?? ctx.podCIDR();
  if (!block) throw new CNIError(CNI_ERROR.tryAgainLater, 'this node has no podCIDR yet');
  const pod = podOf(env);
  const hostVeth = hostVethName(pod, env.containerID);
  // On disk before any interface exists: a crash from here on leaves a record DEL or GC frees.
  const alloc = ctx.ipam.allocate(block, {
    containerID: env.containerID, ifName: env.ifName, hostVeth,
    pod: pod.namespace && pod.name ? `${pod.namespace}/${pod.name}` : undefined,
  });
  const podMac = randomPodMac();
  const ops = podNetworkOps({ podIP: alloc.ip, hostVeth, ifName: env.ifName, netns, podMac, mtu: conf.mtu ?? ctx.mtu });
  try {
    try {
      await ctx.netlink.apply(ctx.hostNetns, ops.host);
    } catch (e) {
      // The name is taken: an earlier sandbox of the same pod, or an ADD retried after a
      // failure. Replace it (that also removes a half-made pod end), once.
      if (!(e instanceof NetlinkError && e.index === 0 && e.code === 'EEXIST')) throw e;
      await ctx.netlink.batch(ctx.hostNetns, [{ op: 'linkDel', name: hostVeth }]);
      await ctx.netlink.apply(ctx.hostNetns, ops.host);
    }
    await ctx.netlink.apply(netns, ops.pod);
  } catch (e) {
    await ctx.netlink.batch(ctx.hostNetns, [{ op: 'linkDel', name: hostVeth }]).catch(() => undefined); // the veth may not exist yet; the original error is rethrown
    ctx.ipam.release(env.containerID, env.ifName);
    throw e;
  }
  ctx.log.debug('pod network added', { containerID: env.containerID, pod: alloc.pod, ip: alloc.ip, hostVeth, block: formatCidr(block) });
  return podResult({ cniVersion: conf.cniVersion, hostVeth, hostMac: HOST_VETH_MAC, ifName: env.ifName, podMac, sandbox: env.netns, podIP: alloc.ip, dns: conf.dns });
}

async function del(ctx: CNIHandlerContext, env: CNIEnv): Promise<void> {
  const alloc = ctx.ipam.find(env.containerID, env.ifName);
  if (!alloc) return;
  // A newer sandbox of the same pod may have taken the veth name over: leave it alone.
  if (alloc.hostVeth && ctx.ipam.othersWithVeth(alloc.hostVeth, env.containerID).length === 0) {
    const [r] = await ctx.netlink.batch(ctx.hostNetns, [{ op: 'linkDel', name: alloc.hostVeth }]);
    if (r?.status === 'error' && r.code !== 'ENODEV' && r.code !== 'ENOENT') {
      throw new CNIError(CNI_ERROR.internal, `cannot delete ${alloc.hostVeth}`, `${r.code}: ${r.message}`);
    }
  }
  ctx.ipam.release(env.containerID, env.ifName);
  ctx.log.debug('pod network deleted', { containerID: env.containerID, ip: alloc.ip });
}

async function addLoopback(ctx: CNIHandlerContext, conf: NetConf, env: CNIEnv, netns: string): Promise<Record<string, unknown>> {
  await ctx.netlink.apply(netns, [{ op: 'linkSet', name: 'lo', up: true }]);
  return loopbackResult(conf.cniVersion, env.netns);
}

async function checkLoopback(ctx: CNIHandlerContext, netns: string): Promise<void> {
  const lo = (await ctx.netlink.links(netns)).find((l) => l.name === 'lo');
  if (!lo?.up) throw new CNIError(CNI_ERROR.internal, 'lo is not up in the pod');
}

async function check(ctx: CNIHandlerContext, env: CNIEnv, netns: string): Promise<void> {
  const alloc = ctx.ipam.find(env.containerID, env.ifName);
  if (!alloc) throw new CNIError(CNI_ERROR.unknownContainer, `no address is allocated to container ${env.containerID} ${env.ifName}`);
  const fail = (what: string) => { throw new CNIError(CNI_ERROR.internal, `pod network of ${env.containerID} is broken: ${what}`); };
  const [podRes, hostRes] = await Promise.all([
    ctx.netlink.apply(netns, [{ op: 'linkList' }, { op: 'addrList', family: 4 }, { op: 'routeList', family: 4 }]),
    ctx.netlink.apply(ctx.hostNetns, [{ op: 'linkList' }, { op: 'routeList', family: 4 }, { op: 'sysctlRead', path: `net/ipv4/conf/${alloc.hostVeth}/proxy_arp` }])
      .catch((e) => { if (e instanceof NetlinkError && e.code === 'ENOENT') fail(`host interface ${alloc.hostVeth} is missing`); throw e; }),
  ]);
  const okRes = (r: unknown) => r as { links?: { name: string; up: boolean }[]; addrs?: { dev: string; address: string; prefixLen: number }[]; routes?: { dst: string; via?: string; dev?: string; scope: number; protocol: number }[]; value?: string };
  const [pLinks, pAddrs, pRoutes] = podRes.map(okRes);
  const [hLinks, hRoutes, proxyArp] = hostRes.map(okRes);
  if (!pLinks!.links?.some((l) => l.name === env.ifName && l.up)) fail(`${env.ifName} is missing or down`);
  if (!pAddrs!.addrs?.some((a) => a.dev === env.ifName && a.address === alloc.ip && a.prefixLen === 32)) fail(`${env.ifName} lacks ${alloc.ip}/32`);
  if (!pRoutes!.routes?.some((r) => r.dst === `${POD_GATEWAY}/32` && r.dev === env.ifName && r.scope === RT_SCOPE.link)) fail(`no on-link route to ${POD_GATEWAY}`);
  if (!pRoutes!.routes?.some((r) => r.dst === 'default' && r.via === POD_GATEWAY && r.dev === env.ifName)) fail(`no default route via ${POD_GATEWAY}`);
  if (!hLinks!.links?.some((l) => l.name === alloc.hostVeth && l.up)) fail(`host interface ${alloc.hostVeth} is missing or down`);
  if (!hRoutes!.routes?.some((r) => r.dst === `${alloc.ip}/32` && r.dev === alloc.hostVeth && r.protocol === POD_ROUTE_PROTOCOL)) fail(`the node has no route to ${alloc.ip} via ${alloc.hostVeth}`);
  if (proxyArp!.value?.trim() !== '1') fail(`proxy_arp is off on ${alloc.hostVeth}`);
}
