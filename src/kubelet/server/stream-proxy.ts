// SPDY clients — exec and attach from kubectl 1.27–1.29 (and newer ones falling back), and
// port-forward from every kubectl (≥1.31 through the API server's WebSocket tunnel) — are
// handed to the CRI stream server, as upstream's kubelet does: the runtime speaks the
// remote-command (v1–v4) and portforward.k8s.io protocols itself, and containerd's
// port-forward dials the port from inside the pod's network namespace. The kubelet forwards
// the upgrade with the protocols the client offered, passes the runtime's 101 back and then
// joins the two connections byte for byte.
import type { Duplex } from 'node:stream';
import { splice } from '../../util/splice.js';
import type { Dialer } from './remote-command.js';
import { streamServerAddress, upgradeToStreamServer } from './stream-upgrade.js';

/** The protocols a SPDY upgrade request offers (`X-Stream-Protocol-Version`, repeated or comma-joined). */
export function offeredStreamProtocols(values: string[] | undefined): string[] {
  return (values ?? []).flatMap((v) => v.split(',')).map((s) => s.trim()).filter(Boolean);
}

/** Upgrades to `streamURL` on behalf of `client` and splices them; rejects before anything was sent to the client. */
export async function proxyToStreamServer(client: Duplex, head: Buffer, offered: string[], streamURL: string, dial: Dialer): Promise<string> {
  const { u, host, port } = streamServerAddress(streamURL);
  const up = await dial(host, port);
  let answer;
  try {
    answer = await upgradeToStreamServer(up, u, offered);
  } catch (e) {
    up.destroy();
    throw e;
  }
  if (client.destroyed) {
    up.destroy();
    return answer.protocol;
  }
  // The head (101, Upgrade, the chosen X-Stream-Protocol-Version) and the first frames go
  // out before anything else the runtime sends: splice() attaches in this same tick.
  client.write(Buffer.concat([answer.head, answer.rest]));
  if (head.length) up.write(head);
  splice(client, up);
  return answer.protocol;
}
