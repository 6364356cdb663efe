// The splice that joins a client's upgraded connection to the kubelet's: what the kubelet
// sent before it closed reaches a client that reads slowly (an exec's exit status is the
// last frame; losing it made `exit 42` look like success under load).
import t from 'tap';
import { Duplex, PassThrough } from 'node:stream';
import { splice } from '../../src/util/splice.js';

/** A connection end whose writes are accepted only after `delayMs` each (a slow reader). */
function slowPeer(delayMs: number): { side: Duplex; received: () => Buffer; closed: Promise<void> } {
  const chunks: Buffer[] = [];
  const side = new Duplex({
    highWaterMark: 1024,
    read() { /* the client sends nothing */ },
    write(chunk: Buffer, _enc, done) { setTimeout(() => { chunks.push(chunk); done(); }, delayMs); },
    // The FIN went out; the client answers by closing, as kubectl does.
    final(done) { done(); setImmediate(() => this.destroy()); },
  });
  const closed = new Promise<void>((r) => side.once('close', () => r()));
  return { side, received: () => Buffer.concat(chunks), closed };
}

t.test('data piped before the kubelet side closed reaches a slow client', async (t) => {
  const kubelet = new PassThrough();
  const client = slowPeer(2);
  splice(kubelet, client.side);
  const payload = Buffer.alloc(64 * 1024, 7);
  const status = Buffer.from('{"status":"Failure","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"42"}]}}');
  kubelet.end(Buffer.concat([payload, status]));
  await client.closed;
  t.equal(client.received().length, payload.length + status.length, 'every byte arrived before the client side closed');
  t.ok(client.received().subarray(-status.length).equals(status), 'the last frame (the exit status) included');
});

t.test('an error on one side tears both down', async (t) => {
  const a = new PassThrough();
  const b = new PassThrough();
  splice(a, b);
  const closed = Promise.all([a, b].map((s) => new Promise((r) => s.once('close', r))));
  a.destroy(new Error('reset by peer'));
  await closed;
  t.ok(a.destroyed && b.destroyed);
});
