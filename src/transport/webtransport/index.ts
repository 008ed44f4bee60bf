// The WebTransport binding (seed 001): server, client, session Connection, SDK adapter, TLS.
//
// Encoding negotiation: the handler above the transport writes the initialize result; the server
// session learns the negotiated encoding from that outgoing result's `result.transport.encoding`
// (no `transport` or no `encoding` means "json") and switches right after that frame. What a
// server admits before READY and which `result.transport` it answers with attach through the
// session's hooks (hooks.ts); `WebTransportSessionConnection.negotiate()` asks them (the mock
// server's binding, src/peer/server/binding.ts, is one; the SDK adapter fills it in).
export { listenWebTransport, ServerListenError } from './server.js';
export type { WebTransportServer, WebTransportServerOptions, SessionRefusal } from './server.js';
export { connectWebTransport, initializeSession } from './client.js';
export type { WebTransportClientOptions, InitializeOptions } from './client.js';
export { WebTransportSessionConnection } from './session.js';
export type { WtRole, WtSessionInit, ClientErrorAnswers } from './session.js';
export type { WtSessionHooks, WtSessionView, ControlReaderSettings, RefusedFrameHandling, OutgoingFrame } from './hooks.js';
export { WebTransportSdkTransport, connectSdkTransport } from './sdk-transport.js';
export type { SdkTransportOptions } from './sdk-transport.js';
export { WebTransportSdkServerTransport, listenSdkServer, CANCELLED_ERROR } from './sdk-server-transport.js';
export type { SdkServerLike, SdkServerListenOptions } from './sdk-server-transport.js';
export { probeWebTransportSession } from './probe.js';
export { verifyServerWithCa } from './ca-verify.js';
export type { ProbeOptions, ProbeResult } from './probe.js';
export {
  generateSelfSignedCertificate,
  loadCertificateFiles,
  loadCaFile,
  materialFromPem,
  parseCertificateHash,
  MAX_PINNED_VALIDITY_DAYS,
} from './tls.js';
export type { TlsMaterial, CertificateHash, SelfSignedOptions } from './tls.js';
export { isOriginAllowed } from './origin.js';
export type { OriginPolicy } from './origin.js';
export { DEFAULT_SESSION_LIMITS, sessionLimits } from './limits.js';
export { bindingReadings, RECOMMENDED_BINDING_READINGS, ALTERNATE_BINDING_READINGS } from './readings.js';
export type { WtBindingReadings } from './readings.js';
export type { WtSessionLimits } from './limits.js';
export { isHttp3Available, requireHttp3, loadNotes } from './library.js';
export {
  WT_ERROR,
  DatagramsNotSupportedError,
  StreamOpenError,
  StreamResetError,
  InvalidUrlError,
  SessionRefusedError,
} from './errors.js';
