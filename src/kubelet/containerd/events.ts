// containerd's own events service (containerd.services.events.v1.Events/Subscribe) on the
// same socket as CRI: containerd 1.6 has no CRI GetContainerEvents (1.7+), so the kubelet
// learns of container exits from the task events instead. The messages are small and only
// a few fields are read: protobuf's wire format by hand, no .proto file.
import * as grpc from '@grpc/grpc-js';
import { varint } from '../../util/index.js';

export interface TaskEvent {
  /** e.g. /tasks/exit, /tasks/oom, /tasks/start. */
  topic: string;
  namespace: string;
  /** The container (= CRI container or sandbox id). */
  containerId: string;
  /** TaskExit: the process that exited — the container's id for its init process, an exec id otherwise. */
  processId?: string;
  /** TaskExit: when it exited (ms since the epoch). */
  exitedAt?: number;
}

const SUBSCRIBE = '/containerd.services.events.v1.Events/Subscribe';

/** SubscribeRequest{repeated string filters = 1}. */
function encodeFilters(filters: string[]): Buffer {
  return Buffer.concat(filters.map((f) => {
    const b = Buffer.from(f, 'utf8');
    return Buffer.concat([Buffer.from([0x0a, ...varint(b.length)]), b]);
  }));
}

/** The varint and length-delimited fields of a message: field number → last value. */
function fields(buf: Uint8Array): Map<number, Uint8Array | number> {
  const out = new Map<number, Uint8Array | number>();
  let pos = 0;
  const readVarint = () => {
    let v = 0, shift = 0, b: number;
    do {
      b = buf[pos++];
      v += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80 && pos < buf.length);
    return v;
  };
  while (pos < buf.length) {
    const tag = readVarint();
    const wire = tag % 8;
    const field = Math.floor(tag / 8);
    if (wire === 0) out.set(field, readVarint());
    else if (wire === 2) {
      const len = readVarint();
      out.set(field, buf.subarray(pos, pos + len));
      pos += len;
    } else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else break; // groups: not in these messages
  }
  return out;
}

const text = (v: Uint8Array | number | undefined) => (v instanceof Uint8Array ? Buffer.from(v).toString('utf8') : '');

/** google.protobuf.Timestamp{seconds=1, nanos=2} in ms. */
function timestampMs(v: Uint8Array | number | undefined): number | undefined {
  if (!(v instanceof Uint8Array)) return undefined;
  const t = fields(v);
  const num = (x: Uint8Array | number | undefined) => (typeof x === 'number' ? x : 0);
  return num(t.get(1)) * 1000 + num(t.get(2)) / 1e6;
}

/** Envelope{timestamp=1, namespace=2, topic=3, event=4 Any{type_url=1, value=2}}; every task
 *  event's payload starts with container_id = 1; TaskExit goes on with id = 2, pid = 3,
 *  exit_status = 4, exited_at = 5. */
export function decodeEnvelope(buf: Buffer): TaskEvent {
  const env = fields(buf);
  const any = env.get(4);
  const payload = any instanceof Uint8Array ? fields(any).get(2) : undefined;
  const event = payload instanceof Uint8Array ? fields(payload) : new Map<number, Uint8Array | number>();
  const topic = text(env.get(3));
  const out: TaskEvent = { namespace: text(env.get(2)), topic, containerId: text(event.get(1)) };
  if (topic === '/tasks/exit') {
    out.processId = text(event.get(2));
    const at = timestampMs(event.get(5));
    if (at !== undefined) out.exitedAt = at;
  }
  return out;
}

export interface EventStream {
  close(): void;
}

/**
 * Subscribes to containerd's events matching `filters` (containerd filter syntax, e.g.
 * `topic~="/tasks/"`, `namespace==k8s.io`). `onEnd` is told when the stream ends or fails;
 * resubscribing is the caller's choice.
 */
export function subscribeEvents(socket: string, filters: string[], onEvent: (e: TaskEvent) => void, onEnd: (err?: Error) => void): EventStream {
  const address = socket.startsWith('unix:') ? socket : `unix://${socket}`;
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  const call = client.makeServerStreamRequest(SUBSCRIBE, encodeFilters, decodeEnvelope, filters);
  let ended = false;
  const end = (err?: Error) => {
    if (ended) return;
    ended = true;
    client.close();
    onEnd(err);
  };
  call.on('data', (e: TaskEvent) => onEvent(e));
  call.on('error', (e: Error) => end(e));
  call.on('end', () => end());
  return {
    close: () => {
      ended = true;
      call.cancel();
      client.close();
    },
  };
}
