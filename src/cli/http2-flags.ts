// The API server's HTTP/2 flags, shared by `capstan apiserver` and `capstan up` (which starts
// an API server in its process): `--http2 false` leaves every connection on HTTP/1.1 (A/B runs).
import type { APIServerOptions } from '../apiserver/server.js';

export const http2Flags = {
  http2: { type: 'string', default: 'true' },
  // kube-apiserver's name; 0 is the default (100).
  'http2-max-streams-per-connection': { type: 'string', default: '0' },
} as const;

export function http2Options(values: { http2?: string; 'http2-max-streams-per-connection'?: string }): Pick<APIServerOptions, 'http2' | 'http2MaxStreamsPerConnection'> {
  const on = values.http2 ?? 'true';
  if (on !== 'true' && on !== 'false') throw new Error(`invalid --http2 ${on} (true or false)`);
  const streams = Number(values['http2-max-streams-per-connection'] ?? '0');
  if (!Number.isInteger(streams) || streams < 0 || streams > 2 ** 31 - 1) throw new Error(`invalid --http2-max-streams-per-connection ${values['http2-max-streams-per-connection']} (a whole number, 0 for the default)`);
  return { http2: on === 'true', http2MaxStreamsPerConnection: streams };
}
