// The string formats custom resource schemas may use (the ones kube-apiserver checks; an
// unknown format is accepted, as upstream does).
import { isIP } from 'node:net';

const checks: Record<string, (v: string) => boolean> = {
  'date-time': (v) => /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(v) && !Number.isNaN(Date.parse(v.replace(' ', 'T'))),
  datetime: (v) => checks['date-time'](v),
  date: (v) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)),
  byte: (v) => /^[A-Za-z0-9+/]*={0,2}$/.test(v) && v.length % 4 === 0,
  ipv4: (v) => isIP(v) === 4,
  ipv6: (v) => isIP(v) === 6,
  cidr: (v) => { const [ip, bits, ...rest] = v.split('/'); const fam = isIP(ip ?? ''); return !rest.length && fam > 0 && /^\d+$/.test(bits ?? '') && Number(bits) <= (fam === 4 ? 32 : 128); },
  uuid: (v) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(v),
  email: (v) => /^[^@\s]+@[^@\s]+$/.test(v),
  hostname: (v) => v.length <= 255 && /^[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?)*$/.test(v),
  mac: (v) => /^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$/.test(v),
  uri: (v) => { try { return Boolean(new URL(v).protocol); } catch { return false; } },
  duration: (v) => /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h|d|w))+$/.test(v),
};

/** True when `v` is not of the (known) format. */
export function formatError(format: string, v: string): boolean {
  const check = checks[format];
  return check ? !check(v) : false;
}
