// What the peer of a case did that the harness saw on its own: frames its session refused, the
// session closed from the far side, the client process ended. The runner reports it as the case's
// failed precondition when a case returned without recording a check: the peer took the case off
// its path before anything could be judged, and the report says how.
import { faultRequirement } from '../judge/wire-faults.js';
import type { CloseInfo, Connection, ConnectionFault } from '../transport/connection.js';
import { isRecord } from '../wire/index.js';
import type { ClientProcess } from './case.js';

/** Refused frames named in the message (the rest are counted). */
const NAMED_FAULTS = 3;

export interface PeerEvidence {
  /** The requirement the peer broke by sending what was refused, when a refusal says which. */
  requirement?: string;
  /** What was observed, in one sentence (frames refused, session closed, exit status and stderr). */
  text: string;
}

/** When the initialize exchange completed on `connection` (the first initialize result in its transcript). */
function readyAt(connection: Connection): number {
  for (const entry of connection.transcript.entries()) {
    const message = entry.decoded;
    if (isRecord(message) && isRecord(message.result) && typeof message.result.protocolVersion === 'string') return entry.at;
  }
  return Infinity;
}

function describeFault(fault: ConnectionFault): string {
  return `${fault.code}${fault.jsonRpcCode !== undefined ? ` (answered ${fault.jsonRpcCode})` : ''}: ${fault.message}`;
}

/** "exited with code 1" / "was killed by SIGKILL", and the last stderr line when there is one. */
export function describeClientEnd(client: ClientProcess): string | undefined {
  const exit = client.exitStatus;
  if (!exit) return undefined;
  const status = exit.code !== null ? `exited with code ${exit.code}` : `was killed by ${exit.signal}`;
  const last = client.stderrLines().filter((line) => line.trim() !== '').at(-1);
  return last === undefined ? `the client ${status}` : `the client ${status}; its stderr ends with: ${last}`;
}

/**
 * What the peer did that explains a case without checks, or undefined when the harness saw the
 * peer do nothing wrong (then the case itself is at fault). `closed` is how the connection ended,
 * when it has; `peer` is the role of the implementation under test.
 */
export function peerEvidence(connection: Connection, closed: CloseInfo | undefined, client: ClientProcess | undefined, peer: 'client' | 'server'): PeerEvidence | undefined {
  const parts: string[] = [];
  let requirement: string | undefined;
  const faults = connection.faults();
  if (faults.length > 0) {
    const ready = readyAt(connection);
    for (const fault of faults) {
      requirement ??= faultRequirement(fault, peer, fault.at < ready, connection.kind);
    }
    const named = faults.slice(0, NAMED_FAULTS).map(describeFault).join('; ');
    const more = faults.length > NAMED_FAULTS ? ` and ${faults.length - NAMED_FAULTS} more` : '';
    parts.push(`the harness refused ${faults.length} frame(s) the ${peer} sent: ${named}${more}`);
  }
  if (closed?.initiator === 'remote') parts.push(`the ${peer} closed the session${closed.reason ? ` (${closed.reason})` : ''}`);
  if (closed?.initiator === 'error') parts.push(`the session failed: ${closed.error?.message ?? closed.reason ?? 'transport error'}`);
  const end = client ? describeClientEnd(client) : undefined;
  if (end !== undefined) parts.push(end);
  if (parts.length === 0) return undefined;
  return { ...(requirement !== undefined ? { requirement } : {}), text: parts.join('; ') };
}
