// Decoding of Kubernetes protobuf request bodies (application/vnd.kubernetes.protobuf) into the
// JSON objects the rest of the server handles. Only decoding: replies are always JSON, which
// clients accept.
import { MessageDecoder } from './decode.js';
import { ProtobufDecodeError } from './errors.js';
import { Reader, WireType } from './reader.js';
import { messages, rootMessage } from './registry.js';

export { ProtobufDecodeError } from './errors.js';

const magic = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
const decoder = new MessageDecoder(messages);

export interface DecodedProtobuf {
  apiVersion: string;
  kind: string;
  object: Record<string, unknown>;
}

interface Unknown {
  apiVersion: string;
  kind: string;
  raw: Buffer;
  contentEncoding: string;
}

function readString(r: Reader, wire: WireType, what: string): string {
  if (wire !== WireType.Bytes) throw new ProtobufDecodeError(`${what}: wire type ${wire}, expected 2`);
  return r.string();
}

/** Reads the runtime.Unknown envelope: 1 typeMeta {1 apiVersion, 2 kind}, 2 raw, 3 contentEncoding, 4 contentType. */
function readEnvelope(body: Buffer): Unknown {
  const env: Unknown = { apiVersion: '', kind: '', raw: Buffer.alloc(0), contentEncoding: '' };
  const r = new Reader(body, magic.length);
  while (!r.eof()) {
    const [field, wire] = r.tag();
    if (field === 1) {
      if (wire !== WireType.Bytes) throw new ProtobufDecodeError(`typeMeta: wire type ${wire}, expected 2`);
      const tm = new Reader(body, ...r.delimited());
      while (!tm.eof()) {
        const [f, w] = tm.tag();
        if (f === 1) env.apiVersion = readString(tm, w, 'typeMeta.apiVersion');
        else if (f === 2) env.kind = readString(tm, w, 'typeMeta.kind');
        else tm.skip(w);
      }
    } else if (field === 2) {
      if (wire !== WireType.Bytes) throw new ProtobufDecodeError(`raw: wire type ${wire}, expected 2`);
      env.raw = r.bytes();
    } else if (field === 3) {
      env.contentEncoding = readString(r, wire, 'contentEncoding');
    } else {
      r.skip(wire);
    }
  }
  return env;
}

/** Decodes a whole request body; throws ProtobufDecodeError for anything it cannot read. */
export function decodeKubernetesProtobuf(body: Buffer): DecodedProtobuf {
  if (body.length < magic.length || !body.subarray(0, magic.length).equals(magic)) {
    throw new ProtobufDecodeError('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  }
  const env = readEnvelope(body);
  if (env.contentEncoding) throw new ProtobufDecodeError(`unsupported protobuf content encoding "${env.contentEncoding}"`);
  if (!env.kind) throw new ProtobufDecodeError('Object \'Kind\' is missing in protobuf envelope');
  const name = rootMessage(env.apiVersion, env.kind);
  if (!name) throw new ProtobufDecodeError(`no protobuf decoding for ${env.apiVersion ? `${env.apiVersion}, ` : ''}Kind=${env.kind}; send JSON instead`);
  const object = decoder.decode(name, env.raw) as Record<string, unknown>;
  return { apiVersion: env.apiVersion, kind: env.kind, object: { apiVersion: env.apiVersion, kind: env.kind, ...object } };
}
