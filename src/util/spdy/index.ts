// SPDY/3.1 as Kubernetes' streaming protocols use it (exec, attach, port-forward): framing,
// header compression and a session for either end of a connection.
export {
  FRAME, FLAG_FIN, FLAG_UNIDIRECTIONAL, GOAWAY, MAX_PAYLOAD, RST, SPDY_VERSION, SpdyProtocolError, controlFrame, dataFrame, goawayFrame,
  parseFrame, parseFrames, pingFrame, rstStreamFrame, settingsFrame, synReplyFrame, synStreamFrame, windowUpdateFrame, type Frame,
} from './frames.js';
export { HeaderCompression, SPDY3_DICTIONARY, decodeHeaderBlock, encodeHeaderBlock, type SpdyHeaders } from './headers.js';
export { SpdySession, SpdyStream, type SpdySessionOptions } from './session.js';
