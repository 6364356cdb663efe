// kubectl still reads the OpenAPI v2 document (`GET /openapi/v2`, protobuf only) when it
// validates a `kind: List` manifest under --validate=strict, and kubectl 1.27/1.28 read it
// for every apply. A 404 there fails the command. We serve a v2 document without
// definitions: kubectl then finds no model to check the objects against and leaves
// validation to the server, which receives `fieldValidation=Strict` on every request anyway.

/**
 * The reply's Content-Type. kubectl asks for the `…spec.v2@v1.0+protobuf` spelling, but Go's
 * media-type parser rejects the `@` in a reply, so servers answer with this one.
 */
import { varint } from '../util/index.js';

export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/** A length-delimited protobuf field (strings and nested messages). */
function field(num: number, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from([...varint((num << 3) | 2), ...varint(body.length)]), body]);
}

/** gnostic openapi_v2.Document { swagger = 1; info = 2 { title = 1; version = 2 } }. */
export function openAPIV2Protobuf(): Buffer {
  const info = Buffer.concat([field(1, Buffer.from('Kubernetes')), field(2, Buffer.from('unversioned'))]);
  return Buffer.concat([field(1, Buffer.from('2.0')), field(2, info)]);
}
