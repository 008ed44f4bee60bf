// The core faults that only change what the session is about to send, as rewrites of that value
// (src/peer/faults.ts `FaultSet.rewrite`): each table is one point where the session sends
// something, and names the faults that act there. The session calls the table; it holds no branch
// for these faults itself.
import type { FaultHooks } from '../../faults.js';
import { CORE_FAULT as F } from '../faults.js';
import { isRecord } from './jsonrpc.js';

type Message = Record<string, unknown>;
type Rewrite<T> = (value: T) => T;

/** A copy of an object without one member (for faults that leave a required member out). */
export function withoutKey(value: object, key: string): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...value };
  delete copy[key];
  return copy;
}

/** Every response the session sends (`{ jsonrpc, id, result | error }`). */
export const RESPONSE_REWRITES: FaultHooks<Rewrite<Message>> = {
  [F.responseJsonrpcVersionWrong]: (response) => ('result' in response ? { ...response, jsonrpc: '2' } : response),
  [F.errorWithoutMessage]: (response) => (isRecord(response['error']) ? { ...response, error: withoutKey(response['error'], 'message') } : response),
  [F.stringIdEchoedAsNumber]: (response) => {
    const id = response['id'];
    return typeof id === 'string' && /^-?[0-9]+$/.test(id) ? { ...response, id: Number(id) } : response;
  },
  [F.integerIdEchoedAsString]: (response) => (typeof response['id'] === 'number' ? { ...response, id: String(response['id']) } : response),
  [F.errorStackLeaked]: (response) => {
    const error = response['error'];
    if (!isRecord(error)) return response;
    const stack = (new Error('internal failure').stack ?? '').split('\n').slice(1).join('\n');
    return { ...response, error: { ...error, message: `${String(error['message'])}\n${stack}` } };
  },
};

/** The initialize result. */
export const INITIALIZE_RESULT_REWRITES: FaultHooks<Rewrite<Message>> = {
  [F.capabilityAsBoolean]: (result) => {
    const capabilities = isRecord(result['capabilities']) ? result['capabilities'] : {};
    const booleans = Object.fromEntries(Object.entries(capabilities).map(([name, value]) => [name, isRecord(value) && Object.keys(value).length === 0 ? true : value]));
    return { ...result, capabilities: booleans };
  },
  [F.initializeMissingServerInfo]: (result) => withoutKey(result, 'serverInfo'),
  [F.wtTransportTypeNotEchoed]: (result) => {
    const transport = result['transport'];
    return isRecord(transport) ? { ...result, transport: withoutKey(withoutKey(transport, 'type'), 'version') } : result;
  },
  [F.wtUnboundedMessageSize]: (result) => {
    const transport = result['transport'];
    return isRecord(transport) ? { ...result, transport: { ...transport, maxMessageSize: 0xffff_ffff } } : result;
  },
};

/** The tools of a tools/list result. */
export const TOOL_LIST_REWRITES: FaultHooks<Rewrite<Message[]>> = {
  [F.duplicateToolName]: (tools) => (tools.length > 0 ? [...tools, tools[0]!] : tools),
};

/** Each tool of a tools/list result. */
export const LISTED_TOOL_REWRITES: FaultHooks<Rewrite<Message>> = {
  [F.toolInputSchemaWithoutType]: (tool) => (isRecord(tool['inputSchema']) ? { ...tool, inputSchema: withoutKey(tool['inputSchema'], 'type') } : tool),
};

/** Each content item of a tools/call result. */
export const TOOL_CONTENT_REWRITES: FaultHooks<Rewrite<unknown>> = {
  [F.toolContentWithoutType]: (item) => (isRecord(item) ? withoutKey(item, 'type') : item),
};

/** The params of notifications/message. */
export const LOG_PARAMS_REWRITES: FaultHooks<Rewrite<Message>> = {
  [F.logLevelUppercase]: (params) => ({ ...params, level: String(params['level']).toUpperCase() }),
};

/** The params of notifications/progress (or of a progress datagram). */
export const PROGRESS_PARAMS_REWRITES: FaultHooks<Rewrite<Message>> = {
  [F.progressUnknownToken]: (params) => ({ ...params, progressToken: `${String(params['progressToken'])}-not-yours` }),
};

/** A request to the client (`{ jsonrpc, id, method, params? }`). */
export const SERVER_REQUEST_REWRITES: FaultHooks<Rewrite<Message>> = {
  [F.serverRequestPositionalParams]: (request) => ('params' in request ? { ...request, params: [request['params']] } : request),
  [F.serverRequestNullProgressToken]: (request) => {
    const params = request['params'];
    if (!isRecord(params)) return request;
    return { ...request, params: { ...params, _meta: { ...(isRecord(params['_meta']) ? params['_meta'] : {}), progressToken: null } } };
  },
};
