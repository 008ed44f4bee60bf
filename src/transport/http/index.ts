// Streamable HTTP transport: the client connection, the mock server's endpoint, and their parts.
export { connectHttp, HttpClientConnection, SESSION_HEADER, PROTOCOL_VERSION_HEADER } from './client.js';
export { BodyTooLargeError } from './body.js';
export type { HttpClientOptions, HttpClientFacet } from './client.js';
export { listenHttp, HttpServerConnection, DEFAULT_PROTOCOL_VERSIONS } from './server.js';
export type { HttpServerOptions, HttpListener } from './server.js';
export { HttpExchangeError } from './exchange.js';
export { SseParser, encodeSseEvent } from './sse.js';
export type { SseEvent } from './sse.js';
export { classifyMessage, decodeJsonBody, jsonRpcError } from './json-body.js';
export type { JsonRpcId, MessageKind, BodyDecodeFailure } from './json-body.js';
export { originAllowed } from './origin.js';
export type { OriginPolicy } from './origin.js';
