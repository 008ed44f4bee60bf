// Faults a Connection saw on the wire (frames that did not decode, datagrams it dropped, messages a
// WebTransport session refused) as the requirement the sending peer broke. The proxy judges them
// from its connections' faults rather than racing the connection (which checks them as bytes
// arrive); the runner names them when a peer took a case off its path (src/harness/peer-evidence.ts).
import type { ConnectionFault, TransportKind } from '../transport/connection.js';

/** The requirement a fault breaks, by who sent what caused it. */
type Blame = string | { client: string; server: string };

/** WebTransport fault codes, with what they break before the initialize exchange completes and after (the same when one is given). */
const WEBTRANSPORT_FAULTS: Readonly<Record<string, Blame | { beforeReady: Blame; ready: Blame }>> = {
  FRAME_TRUNCATED_LENGTH: 'WT-FRAME-1',
  FRAME_TRUNCATED_BODY: 'WT-FRAME-1',
  INVALID_UTF8: 'WT-FRAME-1',
  INVALID_JSON: 'WT-FRAME-1',
  CBOR_TRAILING_BYTES: 'WT-FRAME-1',
  INVALID_CBOR: 'WT-ENC-10',
  FRAME_EMPTY: 'WT-FRAME-2',
  FRAME_TOO_LARGE: { client: 'WT-FRAME-9', server: 'WT-FRAME-1' },
  // The initialize exchange itself goes in JSON; everything after it in the negotiated encoding.
  ENCODING_MISMATCH: { beforeReady: { client: 'WT-ENC-1', server: 'WT-ENC-2' }, ready: { client: 'WT-ENC-12', server: 'WT-ENC-3' } },
  EXEC_HEADER_TRUNCATED: 'WT-EXEC-1',
  STREAM_INJECTION: 'WT-EXEC-2',
  INVALID_STREAM_REFERENCE: 'WT-EXEC-3',
  DATAGRAM_TOO_SHORT: 'WT-DGRAM-1',
  DATAGRAM_RESERVED_CHANNEL: 'WT-DGRAM-2',
  DATAGRAM_RESERVED_FLAGS: 'WT-DGRAM-3',
  DATAGRAM_NOT_IN_FLIGHT: { client: 'WT-DGRAM-10', server: 'WT-DGRAM-7' },
  ID_OUT_OF_RANGE: 'WT-ID-1',
  FIRST_MESSAGE_NOT_INITIALIZE: 'WT-CONN-3',
  MESSAGE_BEFORE_READY: 'WT-CONN-5',
  UNKNOWN_TRANSPORT_TYPE: 'WT-INIT-1',
};

/** Outside the binding a body or line that is not JSON is simply not a JSON-RPC message. */
const OTHER_TRANSPORT_FAULTS: Readonly<Record<string, string>> = { INVALID_JSON: 'CORE-RPC-1', INVALID_UTF8: 'CORE-RPC-1' };

function blamed(blame: Blame): string[] {
  return typeof blame === 'string' ? [blame] : [blame.client, blame.server];
}

/** Every requirement a WebTransport connection fault can be judged against. */
export const WIRE_FAULT_REQUIREMENTS: readonly string[] = [
  ...new Set(Object.values(WEBTRANSPORT_FAULTS).flatMap((entry) => (typeof entry === 'object' && 'ready' in entry ? [...blamed(entry.beforeReady), ...blamed(entry.ready)] : blamed(entry)))),
];

/**
 * The requirement a peer broke by sending what produced a connection fault with this code, or
 * undefined for codes that say nothing about the peer (the proxy's own limits, HTTP plumbing).
 * `beforeReady` is true while the initialize exchange is not complete on that leg.
 */
export function faultRequirement(fault: Pick<ConnectionFault, 'code'>, sender: 'client' | 'server', beforeReady: boolean, transport: TransportKind): string | undefined {
  if (transport !== 'webtransport') return Object.hasOwn(OTHER_TRANSPORT_FAULTS, fault.code) ? OTHER_TRANSPORT_FAULTS[fault.code] : undefined;
  if (!Object.hasOwn(WEBTRANSPORT_FAULTS, fault.code)) return undefined;
  const entry = WEBTRANSPORT_FAULTS[fault.code] as Blame | { beforeReady: Blame; ready: Blame };
  const blame = typeof entry === 'object' && 'ready' in entry ? (beforeReady ? entry.beforeReady : entry.ready) : entry;
  return typeof blame === 'string' ? blame : blame[sender];
}
