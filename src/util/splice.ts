// Joins two connections byte for byte (an upgraded exec/attach/port-forward stream between
// the client and the kubelet). A side that ends or closes ends the other gracefully, so what
// was already piped — an exec's exit status rides on the last frame — is flushed before the
// FIN; destroying it would drop whatever the kernel had not yet accepted, and the client
// would see the command succeed. Only an error tears both down at once.
import type { Duplex } from 'node:stream';

/** How long a side may take to flush and close after the other has gone. */
const LINGER_MS = 30_000;

export function splice(a: Duplex, b: Duplex): void {
  a.pipe(b);
  b.pipe(a);
  const destroyBoth = () => { a.destroy(); b.destroy(); };
  a.on('error', destroyBoth);
  b.on('error', destroyBoth);
  const endOther = (other: Duplex) => () => {
    if (other.destroyed) return;
    other.end();
    // A peer that never reads would keep the socket forever.
    setTimeout(() => other.destroy(), LINGER_MS).unref();
  };
  a.on('close', endOther(b));
  b.on('close', endOther(a));
}
