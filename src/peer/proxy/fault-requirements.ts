// Faults a Connection saw on the wire (frames that did not decode, datagrams it dropped, messages a
// WebTransport session refused) as the requirement the sending peer broke.
import type { ConnectionFault, TransportKind } from '../../transport/connection.js';

/**
 * Every requirement a WebTransport connection fault can be judged against. The connection checks
 * these as bytes arrive (a datagram or execution stream naming no request in flight is dropped
 * there), so the proxy judges them from its faults rather than racing the connection.
 */
export const WIRE_FAULT_REQUIREMENTS: readonly string[] = [
  'WT-FRAME-1', 'WT-FRAME-2', 'WT-FRAME-9', 'WT-ENC-1', 'WT-ENC-2', 'WT-ENC-3', 'WT-ENC-12', 'WT-EXEC-1', 'WT-EXEC-2',
  'WT-EXEC-3', 'WT-DGRAM-1', 'WT-DGRAM-2', 'WT-DGRAM-3', 'WT-DGRAM-7', 'WT-DGRAM-10', 'WT-CONN-3', 'WT-CONN-5', 'WT-INIT-1',
];

/**
 * The requirement a peer broke by sending what produced a connection fault with this code, or
 * undefined for codes that say nothing about the peer (the proxy's own limits, HTTP plumbing).
 * `beforeReady` is true while the initialize exchange is not complete on that leg.
 */
export function faultRequirement(
  fault: Pick<ConnectionFault, 'code'>,
  sender: 'client' | 'server',
  beforeReady: boolean,
  transport: TransportKind,
): string | undefined {
  // Outside the binding a body or line that is not JSON is simply not a JSON-RPC message.
  if (transport !== 'webtransport') return ['INVALID_JSON', 'INVALID_UTF8'].includes(fault.code) ? 'CORE-RPC-1' : undefined;
  switch (fault.code) {
    case 'FRAME_TRUNCATED_LENGTH':
    case 'FRAME_TRUNCATED_BODY':
    case 'INVALID_UTF8':
    case 'INVALID_JSON':
    case 'CBOR_TRAILING_BYTES':
      return 'WT-FRAME-1';
    case 'INVALID_CBOR':
      return 'WT-ENC-10';
    case 'FRAME_EMPTY':
      return 'WT-FRAME-2';
    case 'FRAME_TOO_LARGE':
      return sender === 'client' ? 'WT-FRAME-9' : 'WT-FRAME-1';
    case 'ENCODING_MISMATCH':
      // The initialize exchange itself goes in JSON; everything after it in the negotiated encoding.
      if (beforeReady) return sender === 'client' ? 'WT-ENC-1' : 'WT-ENC-2';
      return sender === 'client' ? 'WT-ENC-12' : 'WT-ENC-3';
    case 'EXEC_HEADER_TRUNCATED':
      return 'WT-EXEC-1';
    case 'STREAM_INJECTION':
      return 'WT-EXEC-2';
    case 'INVALID_STREAM_REFERENCE':
      return 'WT-EXEC-3';
    case 'DATAGRAM_TOO_SHORT':
      return 'WT-DGRAM-1';
    case 'DATAGRAM_RESERVED_CHANNEL':
      return 'WT-DGRAM-2';
    case 'DATAGRAM_RESERVED_FLAGS':
      return 'WT-DGRAM-3';
    case 'DATAGRAM_NOT_IN_FLIGHT':
      return sender === 'server' ? 'WT-DGRAM-7' : 'WT-DGRAM-10';
    case 'ID_OUT_OF_RANGE':
      return 'WT-ID-1';
    case 'FIRST_MESSAGE_NOT_INITIALIZE':
      return 'WT-CONN-3';
    case 'MESSAGE_BEFORE_READY':
      return 'WT-CONN-5';
    case 'UNKNOWN_TRANSPORT_TYPE':
      return 'WT-INIT-1';
    case 'LINE_TOO_LONG':
    case 'EMPTY_BODY':
      return undefined;
    default:
      return undefined;
  }
}
