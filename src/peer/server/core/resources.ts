// The mock server's resources: a paginated list (opaque cursors), reads with not-found and
// path-traversal errors, one URI template, and subscriptions with notifications/resources/updated
// sent by the `touch` tool (or a timer).
import { CORE_METHOD } from '../../../protocol/methods.js';
import { JSONRPC_ERROR, MCP_ERROR } from '../../../protocol/error-codes.js';
import { RpcError, type RequestContext, type ServerSessionContext, type ServerTool } from '../extension.js';
import { CORE_FAULT as F } from '../faults.js';
import { isRecord } from './jsonrpc.js';
import { RECOMMENDED_CORE_READINGS, type CoreReadings } from './readings.js';

export interface ResourceEntry {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
  /** The contents: text, or bytes sent as base64 `blob`. */
  read(revision: number): { text: string } | { blob: Uint8Array };
  /** Whether its contents change (the `touch` tool or the timer): what a client may want to watch. */
  changes?: boolean;
}

/** Thrown by the broken resource: an unexpected failure the server answers with -32603 (CORE-ERR-2). */
export class ResourceBackendError extends Error {
  readonly code = 'RESOURCE_BACKEND';
  constructor(message: string) {
    super(message);
    this.name = 'ResourceBackendError';
  }
}

export const ITEM_COUNT = 25;
export const TEMPLATE = 'mock://items/{id}';

/** The fixed resources: a readme, a counter that `touch` changes, a binary logo, numbered items, a broken one. */
export function coreResources(): ResourceEntry[] {
  const list: ResourceEntry[] = [
    { uri: 'mock://docs/readme.md', name: 'readme', title: 'Read me', mimeType: 'text/markdown', read: () => ({ text: '# Mock server\n\nA reference MCP server for conformance tests.\n' }) },
    { uri: 'mock://counter', name: 'counter', description: 'Changes each time it is touched', mimeType: 'text/plain', read: (revision) => ({ text: String(revision) }), changes: true },
    { uri: 'mock://binary/logo.bin', name: 'logo', mimeType: 'application/octet-stream', read: () => ({ blob: Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) }) },
    {
      uri: 'mock://broken',
      name: 'broken',
      description: 'Fails to read (an unexpected server-side failure)',
      mimeType: 'text/plain',
      read: () => {
        throw new ResourceBackendError('the storage behind mock://broken is unavailable');
      },
    },
  ];
  const items = ITEM_COUNT - list.length;
  for (let n = 1; n <= items; n++) {
    list.push({ uri: `mock://docs/item-${n}`, name: `item-${n}`, mimeType: 'text/plain', read: () => ({ text: `item ${n}` }) });
  }
  return list;
}

/** Per-session resource state: subscriptions and revisions. */
export class ResourceState {
  readonly subscriptions = new Set<string>();
  readonly revisions = new Map<string, number>();
  timer: NodeJS.Timeout | undefined;

  revision(uri: string): number {
    return this.revisions.get(uri) ?? 0;
  }
}

const CURSOR_PREFIX = 'page:';

function encodeCursor(offset: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${offset}`).toString('base64url');
}

function decodeCursor(cursor: unknown, size: number): number | undefined {
  if (typeof cursor !== 'string') return undefined;
  const decoded = Buffer.from(cursor, 'base64url').toString();
  if (!decoded.startsWith(CURSOR_PREFIX) || encodeCursor(Number(decoded.slice(CURSOR_PREFIX.length))) !== cursor) return undefined;
  const offset = Number(decoded.slice(CURSOR_PREFIX.length));
  return Number.isInteger(offset) && offset > 0 && offset < size ? offset : undefined;
}

/** Whether a URI climbs out of its root with a `..` segment (also percent-encoded) (CORE-RES-4). */
export function escapesRoot(uri: string): boolean {
  let path = uri.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  try {
    path = decodeURIComponent(path);
  } catch {
    // keep the raw path
  }
  return path.split(/[/\\]/).some((segment) => segment === '..');
}

export interface ResourceFeature {
  requests: Record<string, (params: unknown, ctx: RequestContext) => Promise<unknown>>;
  touchTool: ServerTool;
  state(ctx: ServerSessionContext): ResourceState;
  end(ctx: ServerSessionContext): void;
}

export function resourceFeature(options: { pageSize: number; updateIntervalMs?: number; readings?: CoreReadings }): ResourceFeature {
  const readings = options.readings ?? RECOMMENDED_CORE_READINGS;
  const resources = coreResources();
  const byUri = new Map(resources.map((r) => [r.uri, r]));
  const states = new Map<string, ResourceState>();

  const state = (ctx: ServerSessionContext): ResourceState => {
    let s = states.get(ctx.connectionId);
    if (!s) {
      s = new ResourceState();
      states.set(ctx.connectionId, s);
      if (options.updateIntervalMs !== undefined) {
        const session = ctx;
        const current = s;
        s.timer = setInterval(() => void touch(session, current, 'mock://counter'), options.updateIntervalMs);
        s.timer.unref();
      }
    }
    return s;
  };

  const find = (uri: string): { entry: ResourceEntry; uri: string } | undefined => {
    const entry = byUri.get(uri);
    if (entry) return { entry, uri };
    const match = /^mock:\/\/items\/([A-Za-z0-9_-]{1,64})$/.exec(uri);
    if (match) {
      const id = match[1]!;
      return { uri, entry: { uri, name: `item ${id}`, mimeType: 'text/plain', read: () => ({ text: `item ${id} (from ${TEMPLATE})` }) } };
    }
    return undefined;
  };

  const uriParam = (params: unknown): string => {
    const uri = isRecord(params) ? params['uri'] : undefined;
    if (typeof uri !== 'string') throw new RpcError(JSONRPC_ERROR.InvalidParams, 'Invalid params: uri must be a string');
    return uri;
  };

  /**
   * A URI this server does not have (CORE-RES-2): -32002 as the official specification says, or
   * 002's ResourceNotFound -32001, with -32602 for a URI of a scheme this server does not serve.
   */
  const notFound = (uri: string) => {
    if (readings.resourceNotFound === 'official') return new RpcError(MCP_ERROR.OfficialResourceNotFound, `Resource not found: ${uri}`, { uri });
    if (!uri.startsWith('mock://')) return new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: this server serves mock:// URIs only, not ${uri}`, { uri });
    return new RpcError(MCP_ERROR.ResourceNotFound, `ResourceNotFound: ${uri}`, { uri });
  };

  const touch = async (ctx: ServerSessionContext, s: ResourceState, uri: string): Promise<boolean> => {
    s.revisions.set(uri, s.revision(uri) + 1);
    if (!s.subscriptions.has(uri) && !ctx.faults.has(F.updatedWithoutSubscription)) return false;
    await ctx.sendNotification(CORE_METHOD.resourcesUpdated, { uri }).catch(() => undefined);
    return true;
  };

  const requests: ResourceFeature['requests'] = {
    [CORE_METHOD.resourcesList]: async (params, ctx) => {
      const cursor = isRecord(params) ? params['cursor'] : undefined;
      let offset = 0;
      if (cursor !== undefined) {
        const decoded = decodeCursor(cursor, resources.length);
        if (decoded === undefined && !ctx.faults.has(F.invalidCursorAccepted)) {
          throw new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: unknown cursor ${JSON.stringify(cursor)}`, { cursor });
        }
        offset = decoded ?? 0;
      }
      const page = resources.slice(offset, offset + options.pageSize).map((r) => {
        const listed: Record<string, unknown> = { uri: r.uri, mimeType: r.mimeType };
        if (!ctx.faults.has(F.resourceWithoutName)) listed['name'] = r.name;
        if (r.title !== undefined && ctx.protocolVersion >= '2025-06-18') listed['title'] = r.title;
        if (r.description !== undefined) listed['description'] = r.description;
        return listed;
      });
      const result: Record<string, unknown> = { resources: page };
      const next = offset + options.pageSize;
      if (next < resources.length) result['nextCursor'] = ctx.faults.has(F.nextCursorNumber) ? next : encodeCursor(next);
      else if (ctx.faults.has(F.cursorLoops) && offset > 0) result['nextCursor'] = encodeCursor(options.pageSize);
      return result;
    },
    [CORE_METHOD.resourcesTemplatesList]: async (params, ctx) => {
      if (isRecord(params) && params['cursor'] !== undefined) {
        throw new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: unknown cursor ${JSON.stringify(params['cursor'])}`);
      }
      const template: Record<string, unknown> = { uriTemplate: TEMPLATE, name: 'item', description: 'Any item by id', mimeType: 'text/plain' };
      if (ctx.faults.has(F.templateWithoutName)) delete template['name'];
      return { resourceTemplates: [template] };
    },
    [CORE_METHOD.resourcesRead]: async (params, ctx) => {
      const uri = uriParam(params);
      if (escapesRoot(uri)) {
        if (ctx.faults.has(F.pathTraversalServed)) return { contents: [{ uri, mimeType: 'text/plain', text: 'root:x:0:0:root:/root:/bin/sh' }] };
        throw new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: ${uri} escapes the resource root`, { uri });
      }
      const found = find(uri);
      if (!found) {
        if (ctx.faults.has(F.resourceNotFoundResult)) return { contents: [] };
        throw notFound(uri);
      }
      const body = found.entry.read(state(ctx).revision(uri));
      const content: Record<string, unknown> = { uri: found.uri, mimeType: found.entry.mimeType };
      if ('text' in body) {
        if (!ctx.faults.has(F.resourceContentWithoutBody)) content['text'] = body.text;
      } else content['blob'] = Buffer.from(body.blob).toString('base64');
      return { contents: [content] };
    },
    [CORE_METHOD.resourcesSubscribe]: async (params, ctx) => {
      const uri = uriParam(params);
      const found = escapesRoot(uri) ? undefined : find(uri);
      if (!found) throw notFound(uri);
      // 003 §5.6 lets a server refuse a subscription ("subscription not allowed"): the other reading refuses resources that never change.
      if (readings.subscribe === 'changing-only' && found.entry.changes !== true) {
        throw new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: ${uri} never changes; subscribing to it is not allowed`, { uri });
      }
      state(ctx).subscriptions.add(uri);
      return {};
    },
    [CORE_METHOD.resourcesUnsubscribe]: async (params, ctx) => {
      const uri = uriParam(params);
      if (ctx.faults.has(F.unsubscribeRefused) && find(uri)) throw new RpcError(JSONRPC_ERROR.InvalidParams, `Invalid params: cannot unsubscribe from ${uri}`, { uri });
      state(ctx).subscriptions.delete(uri);
      return {};
    },
  };

  const touchTool: ServerTool = {
    name: 'touch',
    title: 'Touch a resource',
    description: 'Changes a resource; subscribers get notifications/resources/updated.',
    inputSchema: { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'], additionalProperties: false },
    async call(args, ctx) {
      const uri = args['uri'] as string;
      if (!find(uri)) return { content: [{ type: 'text', text: `no resource ${uri}` }], isError: true };
      const notified = await touch(ctx, state(ctx), uri);
      return { content: [{ type: 'text', text: notified ? `touched ${uri}; subscribers notified` : `touched ${uri}; nobody subscribed` }] };
    },
  };

  return {
    requests,
    touchTool,
    state,
    end(ctx) {
      const s = states.get(ctx.connectionId);
      if (s?.timer) clearInterval(s.timer);
      states.delete(ctx.connectionId);
    },
  };
}
