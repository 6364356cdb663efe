// The network config the runtime hands the plugin on stdin (one entry of the conflist, with
// the list's name and cniVersion copied in) and the CNI_* environment, validated into the
// shape the handlers use. Errors carry the spec's codes.
import { parseCidr, type Cidr } from '../cidr.js';
import { CNIError, CNI_ERROR } from './errors.js';

export const SUPPORTED_VERSIONS = ['0.3.0', '0.3.1', '0.4.0', '1.0.0'] as const;
export const PLUGIN_TYPE = 'capstan';
export const LOOPBACK_TYPE = 'loopback';

export type Command = 'ADD' | 'DEL' | 'CHECK' | 'VERSION';

export interface NetConf {
  cniVersion: string;
  name: string;
  type: string;
  /** Overrides the node's spec.podCIDR (standalone use and tests). */
  podCIDR?: Cidr;
  mtu?: number;
  dns?: Record<string, unknown>;
  prevResult?: Record<string, unknown>;
}

export interface CNIEnv {
  command: Command;
  containerID: string;
  netns: string;
  ifName: string;
  args: Record<string, string>;
}

/** The runtime's cniVersion; best effort, for error replies before the config is validated. */
export function sniffVersion(stdin: Buffer): string {
  try {
    const v = (JSON.parse(stdin.toString('utf8')) as { cniVersion?: unknown }).cniVersion;
    return typeof v === 'string' && v ? v : '1.0.0';
  } catch { // unparsable stdin is reported by validation; this only picks the error's version
    return '1.0.0';
  }
}

export function parseNetConf(stdin: Buffer): NetConf {
  let raw: unknown;
  try {
    raw = JSON.parse(stdin.toString('utf8'));
  } catch (e) {
    throw new CNIError(CNI_ERROR.decode, 'cannot decode the network configuration', (e as Error).message);
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new CNIError(CNI_ERROR.decode, 'the network configuration is not a JSON object');
  const c = raw as Record<string, unknown>;
  if (typeof c.cniVersion !== 'string' || !c.cniVersion) throw new CNIError(CNI_ERROR.invalidConfig, 'cniVersion is required');
  if (!(SUPPORTED_VERSIONS as readonly string[]).includes(c.cniVersion)) {
    throw new CNIError(CNI_ERROR.incompatibleVersion, `incompatible CNI version ${c.cniVersion}`, `supported: ${SUPPORTED_VERSIONS.join(', ')}`);
  }
  if (typeof c.name !== 'string' || !c.name) throw new CNIError(CNI_ERROR.invalidConfig, 'name is required');
  if (c.type !== PLUGIN_TYPE && c.type !== LOOPBACK_TYPE) throw new CNIError(CNI_ERROR.invalidConfig, `type must be "${PLUGIN_TYPE}" or "${LOOPBACK_TYPE}"`, `got ${JSON.stringify(c.type)}`);
  // capstan does its own IPAM from the node's block; a delegated one would be ignored silently.
  if (c.ipam !== undefined && c.type === PLUGIN_TYPE) throw new CNIError(CNI_ERROR.unsupportedField, 'ipam is not supported: capstan allocates from the node\'s podCIDR', JSON.stringify(c.ipam));
  const conf: NetConf = { cniVersion: c.cniVersion, name: c.name, type: c.type };
  if (c.podCIDR !== undefined) {
    const cidr = typeof c.podCIDR === 'string' ? parseCidr(c.podCIDR) : undefined;
    if (!cidr || cidr.prefix > 30) throw new CNIError(CNI_ERROR.invalidConfig, 'podCIDR must be an IPv4 block of /30 or larger', JSON.stringify(c.podCIDR));
    conf.podCIDR = cidr;
  }
  if (c.mtu !== undefined) {
    if (typeof c.mtu !== 'number' || !Number.isInteger(c.mtu) || c.mtu < 576 || c.mtu > 65535) throw new CNIError(CNI_ERROR.invalidConfig, 'mtu must be an integer between 576 and 65535', JSON.stringify(c.mtu));
    conf.mtu = c.mtu;
  }
  if (c.dns !== undefined && (typeof c.dns !== 'object' || c.dns === null)) throw new CNIError(CNI_ERROR.invalidConfig, 'dns must be an object');
  if (c.dns) conf.dns = c.dns as Record<string, unknown>;
  if (c.prevResult && typeof c.prevResult === 'object') conf.prevResult = c.prevResult as Record<string, unknown>;
  return conf;
}

const CONTAINER_ID = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

export function parseEnv(env: Record<string, string>): CNIEnv {
  const command = env.CNI_COMMAND;
  if (command !== 'ADD' && command !== 'DEL' && command !== 'CHECK' && command !== 'VERSION') {
    throw new CNIError(CNI_ERROR.invalidEnvironment, `CNI_COMMAND must be ADD, DEL, CHECK or VERSION`, `got ${JSON.stringify(command ?? '')}`);
  }
  const out: CNIEnv = { command, containerID: env.CNI_CONTAINERID ?? '', netns: env.CNI_NETNS ?? '', ifName: env.CNI_IFNAME ?? '', args: parseArgs(env.CNI_ARGS ?? '') };
  if (command === 'VERSION') return out;
  if (!CONTAINER_ID.test(out.containerID)) throw new CNIError(CNI_ERROR.invalidEnvironment, 'CNI_CONTAINERID is missing or malformed', JSON.stringify(out.containerID));
  if (!out.ifName || out.ifName.length > 15 || /[\s/:]/.test(out.ifName) || out.ifName === '.' || out.ifName === '..') {
    throw new CNIError(CNI_ERROR.invalidEnvironment, 'CNI_IFNAME is missing or not a valid interface name', JSON.stringify(out.ifName));
  }
  if ((command === 'ADD' || command === 'CHECK') && !out.netns.startsWith('/')) {
    throw new CNIError(CNI_ERROR.invalidEnvironment, 'CNI_NETNS must be an absolute path', JSON.stringify(out.netns));
  }
  return out;
}

/** CNI_ARGS: "K=V;K=V" (containerd sends K8S_POD_NAMESPACE, K8S_POD_NAME, IgnoreUnknown...). */
export function parseArgs(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of s.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out[part.slice(0, eq)] = part.slice(eq + 1);
  }
  return out;
}
