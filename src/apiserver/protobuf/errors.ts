/** A request body that is not a well-formed Kubernetes protobuf object we can read. The server answers 400. */
export class ProtobufDecodeError extends Error {
  override readonly name = 'ProtobufDecodeError';
}
