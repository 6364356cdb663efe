// Names as the server compares them: lower case, no trailing dot (the specification makes
// every comparison case-insensitive), and the reverse-lookup forms of addresses.
import { isIPv4, isIPv6 } from 'node:net';
import { expandIPv6 } from '../util/index.js';

export function normalize(name: string): string {
  const n = name.toLowerCase();
  return n.endsWith('.') && n.length > 1 ? n.slice(0, -1) : n === '.' ? '' : n;
}

/** True when `name` is `zone` or below it. */
export function inZone(name: string, zone: string): boolean {
  return name === zone || name.endsWith(`.${zone}`);
}

/** `10.0.0.1` → `1.0.0.10.in-addr.arpa`; IPv6 → nibbles under ip6.arpa. */
export function reverseName(ip: string): string | undefined {
  if (isIPv4(ip)) return `${ip.split('.').reverse().join('.')}.in-addr.arpa`;
  if (isIPv6(ip)) return `${expandIPv6(ip)!.replace(/:/g, '').split('').reverse().join('.')}.ip6.arpa`;
  return undefined;
}

export function isReverseName(name: string): boolean {
  return name.endsWith('.in-addr.arpa') || name.endsWith('.ip6.arpa');
}

export { expandIPv6 };

/** The dashed label for an address: `10-0-0-1`, `2001-db8--1`. */
export function dashed(ip: string): string {
  return isIPv4(ip) ? ip.replace(/\./g, '-') : ip.replace(/:/g, '-');
}

/** The address a pod-record label names, or undefined: `10-0-0-1` → `10.0.0.1`. */
export function undash(label: string): string | undefined {
  const v4 = label.replace(/-/g, '.');
  if (isIPv4(v4)) return v4;
  const v6 = label.replace(/-/g, ':');
  if (isIPv6(v6)) return v6;
  return undefined;
}
