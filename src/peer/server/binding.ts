// The WebTransport binding (seed 001) as an extension of the mock server, the way flow/ and
// fastworkflow/ are: what a server admits on the control stream (001 §1: nothing but initialize
// before READY; the initialize transport parameters, WT-INIT-2/5/6, WT-ENC-7; request ids the
// stream and datagram headers cannot carry, WT-ID-2/3), the `result.transport` it answers
// initialize with (001 §3: the first offered encoding it speaks, its limits), the cancelled code of
// WT-CANCEL-2, and its fault catalog. The session (src/transport/webtransport/session.ts) carries
// the bytes; the binding attaches to each one through its hooks (`listener`, for listenWebTransport)
// and gives the core the `transport` member of the initialize result (`initializeResult`).
import type { Connection, ServerTransportCapabilities } from '../../transport/connection.js';
import type { WtSessionHooks, WtSessionView } from '../../transport/webtransport/hooks.js';
import type { WebTransportServerOptions } from '../../transport/webtransport/server.js';
import { WebTransportSessionConnection } from '../../transport/webtransport/session.js';
import { initializeRequestId, isEncodingName, isReadableId, isRecord, isU32, type DecodedFrame, type EncodingName } from '../../wire/index.js';
import { bindingFaultHooks, bindingListenerOptions, faultyInbound, type FaultSwitches } from './binding-fault-hooks.js';
import { WEBTRANSPORT_FAULT as F, WEBTRANSPORT_FAULTS } from './binding-faults.js';
import type { ServerExtension } from './extension.js';

const MCP_FLOW_TRANSPORT_TYPE = 'mcp-flow';
const MCP_FLOW_TRANSPORT_VERSION = '0.1';

/** 001 §4.2 and the JSON-RPC codes the binding answers with. */
const CODE = { cancelled: -32000, encodingMismatch: -32003, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602 } as const;

export interface WebTransportBindingOptions {
  /** The binding faults switched on (binding-faults.ts; the mock server's ActiveFaults fits). Default: none. */
  faults?: FaultSwitches;
}

/** The WebTransport binding: an extension of the server, and what each WebTransport listener attaches to its sessions. */
export interface WebTransportBinding extends ServerExtension {
  /** The listener options that attach the binding (the session hooks; the Origin and TLS settings its faults change). */
  readonly listener: { hooks: NonNullable<WebTransportServerOptions['hooks']> } & Pick<WebTransportServerOptions, 'origins' | 'minTlsVersion'>;
}

const NO_FAULTS: FaultSwitches = { has: () => false };

export function webTransportBinding(options: WebTransportBindingOptions = {}): WebTransportBinding {
  const faults = options.faults ?? NO_FAULTS;
  return {
    name: 'webtransport-binding',
    faults: WEBTRANSPORT_FAULTS,
    // The `transport` member of the initialize result (WT-INIT-3), on WebTransport only.
    initializeResult: (connection: Connection) =>
      connection instanceof WebTransportSessionConnection ? { transport: connection.negotiate() } : undefined,
    listener: {
      hooks: (view) => new BindingSession(faults, view).hooks(),
      ...bindingListenerOptions(faults),
    },
  };
}

/**
 * The fault code of a message other than initialize that arrived before READY, naming what the
 * client broke: a first message that is not initialize (WT-CONN-3), or a message sent between
 * initialize and its result (WT-CONN-5), where a ping is allowed (its refusal is the server's
 * reading of WT-CONN-4, not the client's fault).
 */
function beforeReadyCode(state: 'CONTROL_STREAM_OPENED' | 'INITIALIZING', method: unknown): string {
  if (state === 'CONTROL_STREAM_OPENED') return 'FIRST_MESSAGE_NOT_INITIALIZE';
  return method === 'ping' ? 'PING_WHILE_INITIALIZING' : 'MESSAGE_BEFORE_READY';
}

/** The binding's side of one session: admission, negotiation, the messages held until READY. */
class BindingSession {
  readonly #faults: FaultSwitches;
  readonly #view: WtSessionView;
  /** The encodings the client offered in its initialize request. */
  #offered: readonly string[] | undefined;
  /** The protocolVersion the client's initialize asked for (fault initialize-version-echoed). */
  requestedVersion: unknown;
  /** Requests that arrived while initializing, served once READY (reading requestWhileInitializing). */
  #held: DecodedFrame[] = [];
  /** Ids named by a received `$/cancel` (their -32000 answer may take another code, WT-CANCEL-2). */
  readonly #cancelled = new Set<string | number>();

  constructor(faults: FaultSwitches, view: WtSessionView) {
    this.#faults = faults;
    this.#view = view;
  }

  hooks(): WtSessionHooks {
    const broken = bindingFaultHooks(this.#faults, this, this.#view);
    return {
      ...broken,
      admit: (message, frame) => {
        const admitted = faultyInbound(this.#faults, message, this.#view);
        return admitted === undefined ? undefined : this.#admit(admitted, frame);
      },
      initializeAnswered: (ok) => this.#release(ok),
      negotiate: () => this.#negotiate(),
      outgoing: (message, view) => {
        const answer = this.#cancelledAnswer(message);
        return broken.outgoing ? broken.outgoing(answer, view) : answer;
      },
    };
  }

  /**
   * The binding's admission rules for a control message (001 §1 before READY, the initialize
   * transport parameters, ids the headers cannot carry). Returns the message to deliver (possibly
   * changed by a fault), or undefined when the binding answered or dropped it.
   */
  #admit(message: unknown, frame: DecodedFrame): unknown {
    const view = this.#view;
    const readings = view.readings;
    const m = isRecord(message) ? message : undefined;
    const rawId = m?.['id'];
    const isRequest = m !== undefined && typeof m['method'] === 'string' && 'id' in m;
    if (isRequest && typeof rawId === 'number' && !isU32(rawId)) {
      // FAULT id-out-of-range-truncated: served under the id cut to 32 bits.
      if (this.#faults.has(F.idOutOfRangeTruncated)) return this.#taken({ ...m, id: rawId >>> 0 });
      // WT-ID-3: the headers cannot carry it. Reading unfitNumericIds 'serve-integers': an integer is served without streams.
      // An id that cannot be read (a fraction, an integer past 2^53) is refused with id null.
      if (!(readings.unfitNumericIds === 'serve-integers' && isReadableId(rawId))) {
        const echo = isReadableId(rawId) && readings.unfitNumericIds !== 'refuse-null';
        view.refuse(echo ? rawId : null, CODE.invalidRequest, 'ID_OUT_OF_RANGE', `Invalid Request: request id ${rawId} is not an integer in 0..2^32-1, which execution-stream and datagram headers carry (WT-ID-3)`);
        return undefined;
      }
    }
    if (isRequest && typeof rawId === 'string' && readings.stringIds === 'refuse') {
      // WT-ID-2, reading "-32600": the headers cannot carry a string id.
      view.refuse(rawId, CODE.invalidRequest, 'STRING_ID', 'Invalid Request: over WebTransport request ids are integers in 0..2^32-1 (WT-ID-2)');
      return undefined;
    }
    const state = view.state;
    if (state === 'INITIALIZING') return this.#beforeReady(message, frame, 'INITIALIZING');
    if (state !== 'CONTROL_STREAM_OPENED') return this.#taken(message);
    // FAULT accept-cbor-initialize (the frame reached here in CBOR only through that fault).
    if (frame.encoding !== 'json' && !this.#faults.has(F.acceptCborInitialize)) {
      view.refuse(idOf(message), CODE.encodingMismatch, 'ENCODING_MISMATCH', 'initialize must be JSON encoded (001 §3 rule 1)');
      return undefined;
    }
    if (initializeRequestId(message) === undefined) return this.#beforeReady(message, frame, 'CONTROL_STREAM_OPENED');
    return this.#admitInitialize(message) ? message : undefined;
  }

  /** A message admitted: a `$/cancel` names a request whose Cancelled answer takes the readings' code. */
  #taken(message: unknown): unknown {
    if (isRecord(message) && message['method'] === '$/cancel') {
      const requestId = isRecord(message['params']) ? message['params']['requestId'] : undefined;
      if (typeof requestId === 'string' || typeof requestId === 'number') this.#cancelled.add(requestId);
    }
    return message;
  }

  /**
   * WT-CONN-4: a message other than initialize before READY. A request is refused (-32600 echoing
   * its id, or -32601 and the session closes), a ping may be answered, one that came with
   * initialize may be served once READY; a notification is never answered (ignored, or the session
   * closes). Returns undefined (the binding took care of it).
   */
  #beforeReady(message: unknown, frame: DecodedFrame, state: 'CONTROL_STREAM_OPENED' | 'INITIALIZING'): undefined {
    const view = this.#view;
    const readings = view.readings;
    const m = isRecord(message) ? message : undefined;
    const method = m?.['method'];
    if (typeof method !== 'string') {
      view.transcript.event(`a message that is no request arrived before READY (${state}): dropped`);
      return undefined;
    }
    const id = idOf(message);
    const isRequest = m !== undefined && 'id' in m;
    if (state === 'INITIALIZING' && readings.requestWhileInitializing === 'serve-when-ready') {
      view.transcript.event(`${method} arrived before the initialize result: served once READY`);
      this.#held.push({ ...frame, message });
      return undefined;
    }
    if (!isRequest) {
      // FAULT notification-before-initialize-answered / notification-while-initializing-answered: a reply to a notification.
      const fault = state === 'CONTROL_STREAM_OPENED' ? F.notificationBeforeInitializeAnswered : F.notificationWhileInitializingAnswered;
      if (this.#faults.has(fault)) {
        view.refuse(null, CODE.invalidRequest, beforeReadyCode(state, method), `Invalid Request: ${method} before the initialize result (fault: a reply to a notification)`);
        return undefined;
      }
      view.report(beforeReadyCode(state, method), `${method} arrived before READY (${state}); notifications are never answered`);
      if (readings.notificationBeforeReady === 'close') void view.close(`${method} before READY`);
      else view.transcript.event(`${method} before READY ignored (no answer: it is a notification)`);
      return undefined;
    }
    if (method === 'ping' && state === 'CONTROL_STREAM_OPENED' && readings.pingBeforeInitialize === 'answer') {
      // MCP lets ping through at any time (the reading WT-CONN-4 accepts).
      void view.send({ jsonrpc: '2.0', id, result: {} }).catch(() => undefined);
      return undefined;
    }
    const when = state === 'CONTROL_STREAM_OPENED' ? 'before initialize' : 'before the initialize result';
    if (readings.requestBeforeReady === 'not-available-and-close') {
      view.refuse(id, CODE.methodNotFound, beforeReadyCode(state, method), `Method not found: ${method} is not available ${when} (001 §1)`);
      void view.closeAfterWrites(`${method} ${when}`);
      return undefined;
    }
    view.refuse(id, CODE.invalidRequest, beforeReadyCode(state, method), `Invalid Request: ${method} ${when}; nothing but initialize is served before READY (001 §1)`);
    return undefined;
  }

  /** The initialize request's transport parameters (WT-INIT-2, -5, -6, WT-ENC-7). Returns whether to serve it. */
  #admitInitialize(message: unknown): boolean {
    const view = this.#view;
    const readings = view.readings;
    const id = idOf(message);
    const params = isRecord(message) && isRecord(message['params']) ? message['params'] : undefined;
    const transport = params?.['transport'];
    const members = isRecord(transport) ? transport : undefined;
    if (transport === undefined && readings.transportOmitted === 'refuse') {
      // WT-INIT-6, reading "-32600".
      view.refuse(id, CODE.invalidRequest, 'TRANSPORT_MISSING', 'Invalid Request: initialize over WebTransport needs params.transport {type: "mcp-flow", version: "0.1"}');
      return false;
    }
    // FAULT accept-unknown-transport-type.
    if (transport !== undefined && members?.['type'] !== MCP_FLOW_TRANSPORT_TYPE && !this.#faults.has(F.acceptUnknownTransportType)) {
      // WT-INIT-2
      view.refuse(id, CODE.invalidRequest, 'UNKNOWN_TRANSPORT_TYPE', `initialize params.transport.type must be "${MCP_FLOW_TRANSPORT_TYPE}"`);
      return false;
    }
    const version = members?.['version'];
    if (version !== undefined && version !== MCP_FLOW_TRANSPORT_VERSION && readings.otherTransportVersion === 'refuse') {
      // WT-INIT-5, reading "-32600".
      view.refuse(id, CODE.invalidRequest, 'TRANSPORT_VERSION', `Invalid Request: transport.version ${JSON.stringify(version)} is not supported (this server speaks "${MCP_FLOW_TRANSPORT_VERSION}")`);
      return false;
    }
    const encodings = members?.['encodings'];
    this.#offered = Array.isArray(encodings) ? encodings.filter((e): e is string => typeof e === 'string') : undefined;
    // FAULT json-encoding-refused.
    if (this.#faults.has(F.jsonEncodingRefused) && this.#offered?.length === 1 && this.#offered[0] === 'json') {
      view.refuse(id, CODE.encodingMismatch, 'JSON_REFUSED', 'this server does not speak "json" (fault)');
      return false;
    }
    const offered = this.#offered ?? [];
    if (offered.length > 0 && !offered.some((name) => this.#speaks(name)) && readings.noSupportedEncoding === 'refuse') {
      // WT-ENC-7, reading "refuse".
      view.refuse(id, CODE.invalidParams, 'NO_SUPPORTED_ENCODING', `Invalid params: none of the offered encodings (${offered.join(', ')}) is supported; this server speaks ${view.encodings.join(', ')}`);
      return false;
    }
    this.requestedVersion = params?.['protocolVersion'];
    return true;
  }

  /**
   * The messages held while initializing (reading requestWhileInitializing 'serve-when-ready'):
   * served now that the session is READY, or, when initialize failed, its requests refused like
   * any other before READY.
   */
  #release(ready: boolean): void {
    const view = this.#view;
    const held = this.#held;
    this.#held = [];
    for (const frame of held) {
      if (ready) {
        view.deliver(this.#taken(frame.message), frame);
        continue;
      }
      const m = isRecord(frame.message) ? frame.message : undefined;
      if (m !== undefined && 'id' in m) {
        view.refuse(idOf(frame.message), CODE.invalidRequest, beforeReadyCode('INITIALIZING', m['method']), `Invalid Request: ${String(m['method'])} arrived before initialize succeeded (001 §1)`);
      }
    }
  }

  #speaks(name: string): boolean {
    return this.#view.encodings.includes(name as EncodingName);
  }

  /**
   * The `result.transport` this server answers the client's initialize with: the first encoding in
   * the client's list that this server speaks ("json" when the client offered none, 001 §3 rule 4),
   * and this session's limits.
   */
  #negotiate(): ServerTransportCapabilities {
    const view = this.#view;
    const offered = this.#offered;
    const speaks = (name: string) => this.#speaks(name);
    let encoding = offered === undefined ? 'json' : (offered.find(speaks) ?? 'json');
    // FAULT ignore-encoding-preference: the last supported encoding in the client's list wins.
    if (this.#faults.has(F.ignoreEncodingPreference) && offered) encoding = [...offered].reverse().find(speaks) ?? 'json';
    // FAULT default-encoding-not-json: no list offered selects CBOR.
    if (this.#faults.has(F.defaultEncodingNotJson) && offered === undefined) encoding = 'cbor';
    // FAULT unsupported-encoding-selected: none supported selects the first offered anyway.
    if (this.#faults.has(F.unsupportedEncodingSelected) && offered && !offered.some(speaks)) encoding = offered.find(isEncodingName) ?? 'json';
    // FAULT encoding-not-offered-selected: CBOR although the client offered only JSON.
    if (this.#faults.has(F.encodingNotOfferedSelected) && offered && !offered.includes('cbor') && speaks('cbor')) encoding = 'cbor';
    const capabilities: ServerTransportCapabilities = {
      type: MCP_FLOW_TRANSPORT_TYPE,
      version: MCP_FLOW_TRANSPORT_VERSION,
      encoding,
      maxMessageSize: view.limits.maxMessageSize,
      maxConcurrentStreams: view.limits.maxConcurrentStreams,
      datagramsSupported: view.datagramsSupported,
    };
    // FAULT advertise-missing-capabilities: a required field is left out.
    if (this.#faults.has(F.advertiseMissingCapabilities)) delete (capabilities as Partial<ServerTransportCapabilities>).maxConcurrentStreams;
    return capabilities;
  }

  /** The -32000 "Cancelled" answer to a `$/cancel`led request, with the code the readings take (WT-CANCEL-2). */
  #cancelledAnswer(message: unknown): unknown {
    if (!isRecord(message) || !isRecord(message['error'])) return message;
    const error = message['error'];
    const id = message['id'];
    if (error['code'] !== CODE.cancelled || (typeof id !== 'string' && typeof id !== 'number') || !this.#cancelled.has(id)) return message;
    const code = this.#view.readings.cancelledCode;
    return code === CODE.cancelled ? message : { ...message, error: { ...error, code } };
  }
}

function idOf(message: unknown): string | number | null {
  const id = isRecord(message) ? message['id'] : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
