// Replay: re-sends the client side of a proxy record against a server and diffs what the server
// sends back with what it sent when the record was made. Each client message is sent once every
// server message that preceded it in the record has its counterpart (the same causal order);
// answers are matched by the client's own request ids, server requests by method and order.
// What legitimately varies is normalised: server request ids and MCP Flow session ids and tokens
// are mapped from the recorded value to the replayed one, timestamps are compared by type only.
import { idKey } from '../../protocol/jsonrpc.js';
import type { Connection, ReceivedMessage } from '../../transport/connection.js';
import { ConnectionClosedError } from '../../transport/errors.js';
import type { TranscriptEntry } from '../../transport/transcript.js';
import { isRecord } from '../../wire/index.js';
import type { RecordedSession } from './record.js';

/** Keys whose string values a server picks afresh each time (mapped, never a difference). */
const VARYING_KEYS = new Set(['sessionId', 'token', 'sessionToken', 'stateToken', 'requestId', 'resumptionToken', 'cursor', 'nextCursor']);
/** Keys holding times (compared by type only). */
const TIME_KEY = /(At|Time|Timestamp)$|^(timestamp|time|date|expires|lastModified)$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const DEFAULT_TRANSPORT_OFFER = { type: 'mcp-flow', version: '0.1', encodings: ['cbor', 'json'] };

export interface ReplayDifference {
  /** JSON pointer inside the message. */
  path: string;
  recorded: unknown;
  replayed: unknown;
}

/** One server message of the record and what the replay got in its place. */
export interface ReplayedAnswer {
  session: number;
  /** `answer to tools/call 3`, `server request interaction.prompt #1`, ... */
  subject: string;
  recorded: unknown;
  /** Undefined when nothing came in its place before the deadline. */
  replayed: unknown;
  differences: ReplayDifference[];
}

export interface ReplayOptions {
  /** How long to wait for each server message. Default 10000 ms. */
  timeoutMs?: number;
}

interface Expected {
  entry: TranscriptEntry;
  message: Record<string, unknown>;
  kind: 'response' | 'request' | 'notification';
  /** Method (requests, notifications) or the method of the request answered (responses). */
  method: string;
  /** Ordinal among recorded server messages of the same kind and method. */
  ordinal: number;
  matched?: Record<string, unknown>;
  givenUp?: boolean;
}

/** Replays one recorded session over `connection` (closed by the caller). */
export async function replaySession(recorded: RecordedSession, connection: Connection, options: ReplayOptions = {}): Promise<ReplayedAnswer[]> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const sent = recorded.entries.filter((entry) => entry.direction === 'sent' && entry.decoded !== undefined);
  const received = recorded.entries.filter((entry) => entry.direction === 'received' && entry.decoded !== undefined);
  const clientMethods = new Map<string, string>();
  for (const entry of sent) for (const item of items(entry.decoded)) if (typeof item['method'] === 'string' && 'id' in item) clientMethods.set(idKey(item['id']), item['method']);
  const counters = new Map<string, number>();
  const expected: Expected[] = received.flatMap((entry) =>
    items(entry.decoded).map((message) => {
      const kind: Expected['kind'] = typeof message['method'] === 'string' ? ('id' in message ? 'request' : 'notification') : 'response';
      const method = kind === 'response' ? (clientMethods.get(idKey(message['id'])) ?? '?') : (message['method'] as string);
      const counter = `${kind}:${kind === 'response' ? idKey(message['id']) : method}`;
      const ordinal = counters.get(counter) ?? 0;
      counters.set(counter, ordinal + 1);
      return { entry, message, kind, method, ordinal };
    }),
  );
  const mapping = new Map<string, string>();
  const arrivals: Record<string, unknown>[] = [];
  const pump = (async () => {
    for (;;) {
      let next: ReceivedMessage;
      try {
        next = await connection.next();
      } catch (error) {
        if (error instanceof ConnectionClosedError) return;
        return;
      }
      for (const item of items(next.message)) arrivals.push(item);
    }
  })();

  const match = (want: Expected): Record<string, unknown> | undefined => {
    let seen = 0;
    for (const got of arrivals) {
      const gotKind = typeof got['method'] === 'string' ? ('id' in got ? 'request' : 'notification') : 'response';
      if (gotKind !== want.kind) continue;
      if (want.kind === 'response' ? idKey(got['id']) !== idKey(want.message['id']) : got['method'] !== want.method) continue;
      if (seen++ === want.ordinal) return got;
    }
    return undefined;
  };
  const waitFor = async (want: Expected) => {
    const deadline = Date.now() + timeoutMs;
    while (want.matched === undefined && !want.givenUp) {
      const got = match(want);
      if (got) {
        want.matched = got;
        learn(want.message, got, mapping);
        return;
      }
      if (Date.now() >= deadline || connection.isClosed) want.givenUp = true;
      else await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  for (const entry of sent) {
    for (const want of expected) {
      if (want.entry.seq < entry.seq && want.kind !== 'notification') await waitFor(want);
    }
    for (const item of items(entry.decoded)) {
      let outgoing = substitute(item, mapping) as Record<string, unknown>;
      if (typeof item['method'] !== 'string' && 'id' in item) {
        // The client's answer to a server request: the replayed request's id.
        const request = expected.find((want) => want.kind === 'request' && idKey(want.message['id']) === idKey(item['id']));
        if (!request?.matched) continue;
        outgoing = { ...outgoing, id: request.matched['id'] };
      }
      if (connection.kind === 'webtransport' && outgoing['method'] === 'initialize') {
        const params = isRecord(outgoing['params']) ? outgoing['params'] : {};
        if (params['transport'] === undefined) outgoing = { ...outgoing, params: { ...params, transport: DEFAULT_TRANSPORT_OFFER } };
      }
      try {
        await connection.send(outgoing);
      } catch (error) {
        if (connection.isClosed) break;
        throw error;
      }
    }
  }
  for (const want of expected) if (want.kind !== 'notification') await waitFor(want);
  for (const want of expected) if (want.kind === 'notification' && !want.matched) want.matched = match(want);
  void pump;

  return expected.map((want) => {
    const subject =
      want.kind === 'response'
        ? `answer to ${want.method} ${JSON.stringify(want.message['id'])}`
        : `server ${want.kind} ${want.method} #${want.ordinal + 1}`;
    const recordedMessage = want.kind === 'request' ? withoutId(want.message) : want.message;
    const replayed = want.matched === undefined ? undefined : want.kind === 'request' ? withoutId(want.matched) : want.matched;
    const differences = replayed === undefined ? [{ path: '', recorded: recordedMessage, replayed: undefined }] : diff(recordedMessage, replayed, mapping);
    return { session: recorded.session, subject, recorded: recordedMessage, replayed, differences };
  });
}

/** One line per answer: `same`, or each difference as `path: recorded -> replayed`. */
export function formatReplayedAnswer(answer: ReplayedAnswer): string {
  const head = `session ${answer.session} ${answer.subject}`;
  if (answer.differences.length === 0) return `  same    ${head}`;
  if (answer.replayed === undefined) return `  MISSING ${head}: nothing came in its place`;
  const lines = answer.differences.slice(0, 20).map((d) => `      ${d.path || '(whole message)'}: ${show(d.recorded)} -> ${show(d.replayed)}`);
  if (answer.differences.length > 20) lines.push(`      ... ${answer.differences.length - 20} more`);
  return [`  DIFFERS ${head}`, ...lines].join('\n');
}

function show(value: unknown): string {
  if (value === undefined) return '(missing)';
  const text = JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

function items(decoded: unknown): Record<string, unknown>[] {
  return (Array.isArray(decoded) ? decoded : [decoded]).filter((item): item is Record<string, unknown> => isRecord(item));
}

function withoutId(message: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, ...rest } = message;
  return rest;
}

/** Learns recorded -> replayed values of the keys servers pick afresh. */
function learn(recorded: unknown, replayed: unknown, mapping: Map<string, string>): void {
  if (Array.isArray(recorded) && Array.isArray(replayed)) {
    recorded.forEach((item, index) => learn(item, replayed[index], mapping));
    return;
  }
  if (!isRecord(recorded) || !isRecord(replayed)) return;
  for (const [name, value] of Object.entries(recorded)) {
    const other = replayed[name];
    if (VARYING_KEYS.has(name) && typeof value === 'string' && typeof other === 'string' && value !== other) mapping.set(value, other);
    else learn(value, other, mapping);
  }
}

/** Replaces every string that is a recorded varying value with its replayed counterpart. */
function substitute(value: unknown, mapping: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') return mapping.get(value) ?? value;
  if (Array.isArray(value)) return value.map((item) => substitute(item, mapping));
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, substitute(item, mapping)]));
  return value;
}

/** Differences between a recorded and a replayed message, after normalisation. */
export function diff(recorded: unknown, replayed: unknown, mapping: ReadonlyMap<string, string> = new Map(), path = '', name = ''): ReplayDifference[] {
  if (typeof recorded === 'string' && typeof replayed === 'string') {
    if (recorded === replayed || mapping.get(recorded) === replayed) return [];
    if (VARYING_KEYS.has(name)) return [];
    if (TIME_KEY.test(name) || (ISO_TIME.test(recorded) && ISO_TIME.test(replayed))) return [];
    return [{ path, recorded, replayed }];
  }
  if (typeof recorded === 'number' && typeof replayed === 'number' && TIME_KEY.test(name)) return [];
  if (Array.isArray(recorded) && Array.isArray(replayed)) {
    const out: ReplayDifference[] = [];
    for (let index = 0; index < Math.max(recorded.length, replayed.length); index++) {
      out.push(...diff(recorded[index], replayed[index], mapping, `${path}/${index}`, name));
    }
    return out;
  }
  if (isRecord(recorded) && isRecord(replayed)) {
    const out: ReplayDifference[] = [];
    for (const member of new Set([...Object.keys(recorded), ...Object.keys(replayed)])) {
      out.push(...diff(recorded[member], replayed[member], mapping, `${path}/${member.replace(/~/g, '~0').replace(/\//g, '~1')}`, member));
    }
    return out;
  }
  if (Object.is(recorded, replayed)) return [];
  return [{ path, recorded, replayed }];
}
