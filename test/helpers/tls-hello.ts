// A TLS 1.2 ClientHello made by Node's own TLS client, and the server certificate read back
// out of the server's first flight (in TLS 1.2 it travels in the clear): enough to show that
// a client with no TLS of its own (busybox nc in a pod) reached a server holding a given
// certificate, without completing the handshake.
import { Duplex } from 'node:stream';
import { connect } from 'node:tls';
import { X509Certificate } from 'node:crypto';

/** The first bytes a TLS 1.2 client sends to `servername`. */
export function clientHello(servername: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let sent = false;
    const wire = new Duplex({
      read() { /* nothing comes back */ },
      write(chunk: Buffer, _enc, cb) {
        if (!sent) { sent = true; resolve(Buffer.from(chunk)); setImmediate(() => tls.destroy()); }
        cb();
      },
    });
    const tls = connect({ socket: wire, servername, maxVersion: 'TLSv1.2', minVersion: 'TLSv1.2', rejectUnauthorized: false });
    tls.once('error', (e) => { if (!sent) reject(e); });
  });
}

/** The leaf certificate in a TLS 1.2 server's first flight, or undefined. */
export function serverCertificate(flight: Buffer): X509Certificate | undefined {
  let handshake = Buffer.alloc(0);
  for (let i = 0; i + 5 <= flight.length;) {
    const type = flight[i], len = flight.readUInt16BE(i + 3);
    if (type === 22) handshake = Buffer.concat([handshake, flight.subarray(i + 5, i + 5 + len)]);
    i += 5 + len;
  }
  for (let i = 0; i + 4 <= handshake.length;) {
    const type = handshake[i], len = handshake.readUIntBE(i + 1, 3);
    if (type === 11) {
      const body = handshake.subarray(i + 4, i + 4 + len);
      const first = body.readUIntBE(3, 3);
      return new X509Certificate(body.subarray(6, 6 + first));
    }
    i += 4 + len;
  }
  return undefined;
}
