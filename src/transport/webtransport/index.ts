// The WebTransport binding (seed 001): server, client, session Connection, SDK adapter, TLS.
export { listenWebTransport, ServerListenError } from './server.js';
export type { WebTransportServer, WebTransportServerOptions, SessionRefusal } from './server.js';
export { connectWebTransport, initializeSession } from './client.js';
export type { WebTransportClientOptions, InitializeOptions } from './client.js';
export { WebTransportSessionConnection } from './session.js';
export type { WtRole } from './session.js';
export { WebTransportSdkTransport, connectSdkTransport } from './sdk-transport.js';
export type { SdkTransportOptions } from './sdk-transport.js';
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
