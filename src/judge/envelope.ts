// The JSON-RPC 2.0 envelope of one message (002 §Message Types defers to JSON-RPC 2.0): an object
// with `jsonrpc: "2.0"`; a request's string `method`, object `params` and string or integer `id`
// (CORE-RPC-2, -3); a response's id and exactly one of `result` (an object, CORE-RPC-14) and
// `error` (an integer code and a message, CORE-RPC-7) (CORE-RPC-5); on WebTransport, request ids
// a header can carry (WT-ID-1).
import { isRecord } from '../wire/index.js';
import type { Problem } from './problem.js';

/** Every requirement the envelope rules can name, on any transport. */
export const ENVELOPE_REQUIREMENTS: readonly string[] = ['CORE-RPC-1', 'CORE-RPC-2', 'CORE-RPC-3', 'CORE-RPC-5', 'CORE-RPC-7', 'CORE-RPC-14'];
/** What the envelope rules add on WebTransport. */
export const WT_ENVELOPE_REQUIREMENTS: readonly string[] = ['WT-ID-1'];

export interface Envelope {
  problems: Problem[];
  /** False when the message is too broken to be read as a request, notification or response. */
  readable: boolean;
}

/** The envelope problems of one message (not a batch: a batch is judged item by item). */
export function envelopeProblems(message: unknown, options: { webTransport?: boolean } = {}): Envelope {
  const broken = (requirement: string, text: string): Envelope => ({ problems: [{ requirement, message: text }], readable: false });
  if (!isRecord(message)) return broken('CORE-RPC-1', 'is not a JSON object');
  if (message['jsonrpc'] !== '2.0') return broken('CORE-RPC-1', `jsonrpc is ${JSON.stringify(message['jsonrpc'])}, not "2.0"`);
  if ('method' in message) {
    if (typeof message['method'] !== 'string') return broken('CORE-RPC-2', 'method is not a string');
    if ('params' in message && !isRecord(message['params'])) {
      return broken('CORE-RPC-2', `params is ${Array.isArray(message['params']) ? 'an array (positional params)' : 'not an object'}`);
    }
    if (!('id' in message)) return { problems: [], readable: true };
    const id = message['id'];
    if (!(typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)))) return broken('CORE-RPC-3', `request id ${JSON.stringify(id)} is neither a string nor an integer`);
    if (options.webTransport && !(typeof id === 'number' && id >= 0 && id <= 0xffff_ffff)) {
      return { problems: [{ requirement: 'WT-ID-1', message: `request id ${JSON.stringify(id)} is not an integer in 0..2^32-1 (WebTransport)` }], readable: true };
    }
    return { problems: [], readable: true };
  }
  if (!('id' in message)) return broken('CORE-RPC-5', 'has neither method nor id');
  const hasResult = 'result' in message;
  if (hasResult === ('error' in message)) return broken('CORE-RPC-5', hasResult ? 'has both result and error' : 'has neither result nor error');
  if (!hasResult) {
    const error = message['error'];
    if (!isRecord(error) || !Number.isInteger(error['code']) || typeof error['message'] !== 'string' || error['message'] === '') {
      return broken('CORE-RPC-7', 'error is not an object with an integer code and a non-empty message');
    }
  } else if (!isRecord(message['result'])) {
    return broken('CORE-RPC-14', `result is ${Array.isArray(message['result']) ? 'an array' : JSON.stringify(message['result'])}, not an object`);
  }
  return { problems: [], readable: true };
}
