// Names as the server compares them: lower case, no trailing dot (the specification makes
// every comparison case-insensitive), and the reverse-lookup forms of addresses.
import { isIPv4, isIPv6 } from 'node:net';

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
  if (isIPv6(ip)) return `${expandIPv6(ip).replace(/:/g, '').split('').reverse().join('.')}.ip6.arpa`;
  return undefined;
}

export function isReverseName(name: string): boolean {
  return name.endsWith('.in-addr.arpa') || name.endsWith('.ip6.arpa');
}

/** The full eight-group form, `2001:db8::1` → `2001:0db8:0000:...:0001`. */
export function expandIPv6(ip: string): string {
  const [head, tail] = ip.includes('::') ? ip.split('::') : [ip, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two groups.
  const last = (tail !== undefined ? t : h);
  if (last.length && isIPv4(last[last.length - 1])) {
    const [a, b, c, d] = last.pop()!.split('.').map(Number);
    last.push(((a << 8) | b).toString(16), ((c << 8) | d).toString(16));
  }
  const fill = tail !== undefined ? new Array(8 - h.length - t.length).fill('0') : [];
  return [...h, ...fill, ...t].map((g) => g.padStart(4, '0')).join(':');
}

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
