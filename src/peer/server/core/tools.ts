// The mock server's built-in tools: echo, add (with outputSchema), slow (progress, cancellable),
// fail (isError), log, sample (a server-to-client request) and download (a large file, over an
// execution stream on WebTransport, as an embedded blob elsewhere).
import { BINDING_METHOD, CORE_METHOD } from '../../../protocol/methods.js';
import type { WebTransportFacet } from '../../../transport/connection.js';
import { JSONRPC_ERROR } from '../../../protocol/error-codes.js';
import { LOG_LEVELS, RpcError, type LogLevel, type RequestContext, type ServerTool, type ToolResult } from '../extension.js';
import { CORE_FAULT as F } from '../faults.js';
import { ClientFeatureUnavailableError } from './errors.js';
import { isHeaderId } from './jsonrpc.js';

const text = (value: string) => ({ type: 'text', text: value });

export const echoTool: ServerTool = {
  name: 'echo',
  title: 'Echo',
  description: 'Returns its text argument unchanged.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'], additionalProperties: false },
  async call(args) {
    return { content: [text(args['text'] as string)] };
  },
};

export const addTool: ServerTool = {
  name: 'add',
  title: 'Add',
  description: 'Adds two numbers; the sum is also returned as structuredContent.',
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  },
  outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
  async call(args, ctx) {
    const sum = (args['a'] as number) + (args['b'] as number);
    const structuredContent = ctx.faults.has(F.structuredContentMismatch) ? { sum: String(sum) } : { sum };
    return { content: [text(String(sum))], structuredContent };
  },
};

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export const slowTool: ServerTool = {
  name: 'slow',
  title: 'Slow',
  description: 'Works for `steps` steps of `stepMs` milliseconds, reporting progress after each; stops when cancelled.',
  inputSchema: {
    type: 'object',
    properties: {
      steps: { type: 'integer', minimum: 1, maximum: 100000, default: 5 },
      stepMs: { type: 'integer', minimum: 0, maximum: 60000, default: 50 },
    },
    additionalProperties: false,
  },
  async call(args, ctx) {
    const steps = (args['steps'] as number | undefined) ?? 5;
    const stepMs = (args['stepMs'] as number | undefined) ?? 50;
    for (let step = 1; step <= steps; step++) {
      await sleep(stepMs, ctx.cancelled);
      await ctx.reportProgress(step, steps, `step ${step} of ${steps}`);
    }
    return { content: [text(`completed ${steps} steps`)] };
  },
};

export const failTool: ServerTool = {
  name: 'fail',
  title: 'Fail',
  description: 'Always fails inside its own execution; the failure is reported as a result with isError.',
  inputSchema: { type: 'object', properties: { message: { type: 'string' } }, additionalProperties: false },
  async call(args) {
    throw new ToolFailure((args['message'] as string | undefined) ?? 'the tool failed on purpose');
  },
};

/** The deliberate failure of the `fail` tool. */
export class ToolFailure extends Error {
  readonly code = 'TOOL_FAILURE';
  constructor(message: string) {
    super(message);
    this.name = 'ToolFailure';
  }
}

export const raiseTool: ServerTool = {
  name: 'raise',
  title: 'Raise',
  description: 'Fails with a protocol error: a JSON-RPC error response with the given code, message and data.',
  inputSchema: {
    type: 'object',
    properties: { code: { type: 'integer' }, message: { type: 'string', minLength: 1 }, data: {} },
    required: ['code', 'message'],
    additionalProperties: false,
  },
  async call(args) {
    throw new RpcError(args['code'] as number, args['message'] as string, args['data']);
  },
};

export const logTool: ServerTool = {
  name: 'log',
  title: 'Log',
  description: 'Sends notifications/message at the given level (subject to logging/setLevel).',
  inputSchema: {
    type: 'object',
    properties: { level: { enum: [...LOG_LEVELS] }, message: { type: 'string' }, logger: { type: 'string' } },
    required: ['level', 'message'],
    additionalProperties: false,
  },
  async call(args, ctx) {
    ctx.log(args['level'] as LogLevel, args['message'], args['logger'] as string | undefined);
    return { content: [text(`logged at ${String(args['level'])}`)] };
  },
};

export const sampleTool: ServerTool = {
  name: 'sample',
  title: 'Sample',
  description: "Asks the client's model (sampling/createMessage) to answer a prompt and returns its text.",
  inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'], additionalProperties: false },
  async call(args, ctx) {
    let result: unknown;
    try {
      result = await ctx.sendRequest(
        CORE_METHOD.samplingCreateMessage,
        { messages: [{ role: 'user', content: { type: 'text', text: args['prompt'] } }], maxTokens: 100 },
        { signal: ctx.cancelled },
      );
    } catch (error) {
      // The client refusing to sample is the tool's failure, not a protocol error of tools/call.
      if (error instanceof RpcError) return { content: [text(`the client refused sampling: ${error.code} ${error.message}`)], isError: true };
      if (error instanceof ClientFeatureUnavailableError) return { content: [text(error.message)], isError: true };
      throw error;
    }
    const content = (result as { content?: { type?: string; text?: unknown } } | undefined)?.content;
    return { content: [text(typeof content?.text === 'string' ? content.text : JSON.stringify(result))] };
  },
};

export const elicitTool: ServerTool = {
  name: 'elicit',
  title: 'Elicit',
  description: 'Asks the user a question through the client (elicitation/create) and returns the action and content.',
  inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'], additionalProperties: false },
  async call(args, ctx) {
    let result: unknown;
    try {
      result = await ctx.sendRequest(
        CORE_METHOD.elicitationCreate,
        { message: args['message'], requestedSchema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] } },
        { signal: ctx.cancelled },
      );
    } catch (error) {
      if (error instanceof RpcError || error instanceof ClientFeatureUnavailableError) {
        return { content: [text(`elicitation failed: ${error.message}`)], isError: true };
      }
      throw error;
    }
    return { content: [text(JSON.stringify(result))], structuredContent: result };
  },
};

/** Byte i of a download is i mod 256, so a client can check what it received. */
export function downloadByte(index: number): number {
  return index & 0xff;
}

function downloadChunk(offset: number, length: number): Uint8Array {
  const chunk = new Uint8Array(length);
  for (let i = 0; i < length; i++) chunk[i] = downloadByte(offset + i);
  return chunk;
}

const DOWNLOAD_CHUNK = 64 * 1024;
const DOWNLOAD_STREAM_TAG = 1;

export const downloadTool: ServerTool = {
  name: 'download',
  title: 'Download',
  description:
    'Returns `bytes` bytes (byte i is i mod 256): over WebTransport as a ref/stream on an execution stream, ' +
    'elsewhere as an embedded base64 resource. `failAfterBytes` makes the stream fail mid-transfer.',
  inputSchema: {
    type: 'object',
    properties: {
      bytes: { type: 'integer', minimum: 0, maximum: 1073741824 },
      failAfterBytes: { type: 'integer', minimum: 0 },
    },
    required: ['bytes'],
    additionalProperties: false,
  },
  async call(args, ctx) {
    const bytes = args['bytes'] as number;
    const failAfter = args['failAfterBytes'] as number | undefined;
    const wt = ctx.webtransport;
    if (!wt || !isHeaderId(ctx.requestId)) {
      if (bytes > 16 * 1024 * 1024) {
        throw new RpcError(JSONRPC_ERROR.InvalidParams, 'Invalid params: without WebTransport execution streams download is limited to 16 MiB');
      }
      const blob = Buffer.from(downloadChunk(0, bytes)).toString('base64');
      return { content: [{ type: 'resource', resource: { uri: `mock://download/${bytes}`, mimeType: 'application/octet-stream', blob } }] };
    }
    return streamDownload(wt, ctx, bytes, failAfter);
  },
};



async function streamDownload(wt: WebTransportFacet, ctx: RequestContext, bytes: number, failAfter: number | undefined): Promise<ToolResult> {
  const requestId = ctx.requestId as number;
  let stream;
  try {
    stream = await wt.openExecutionStream({ requestId, streamTag: DOWNLOAD_STREAM_TAG });
  } catch (error) {
    if ((error as { code?: string }).code === 'LIMIT_EXCEEDED') {
      throw new RpcError(-32000, `Stream Limit Exceeded: ${(error as Error).message}`);
    }
    throw error;
  }
  const keepOnCancel = ctx.faults.has(F.wtCancelKeepsStream);
  // Cancelling resets the stream at once, even while a write waits for flow control (WT-CANCEL-3).
  const onCancel = () => void stream.abort('request cancelled').catch(() => undefined);
  if (!keepOnCancel) ctx.cancelled.addEventListener('abort', onCancel, { once: true });
  let written = 0;
  try {
    while (written < bytes) {
      if (ctx.cancelled.aborted && !keepOnCancel) throw ctx.cancelled.reason;
      if (failAfter !== undefined && written >= failAfter) {
        // A mid-transfer failure: $/streamError, then reset (never FIN) (WT-STREAMERR-1, -2).
        if (!ctx.faults.has(F.wtNoStreamErrorNotification)) {
          await ctx.sendNotification(BINDING_METHOD.streamError, {
            requestId,
            streamTag: DOWNLOAD_STREAM_TAG,
            error: `the source failed after ${written} bytes`,
          });
        }
        if (ctx.faults.has(F.wtStreamErrorWithFin)) await stream.close();
        else await stream.abort('source failed');
        return { content: [text(`download failed after ${written} of ${bytes} bytes`)], isError: true };
      }
      const limit = failAfter !== undefined ? Math.min(bytes, Math.max(failAfter, written + 1)) : bytes;
      const length = Math.min(DOWNLOAD_CHUNK, limit - written);
      await stream.write(downloadChunk(written, length));
      written += length;
    }
    await stream.close();
  } catch (error) {
    if (ctx.cancelled.aborted) throw ctx.cancelled.reason;
    await stream.abort(`write failed: ${(error as Error).message}`).catch(() => undefined);
    throw error;
  } finally {
    ctx.cancelled.removeEventListener('abort', onCancel);
  }
  if (ctx.cancelled.aborted && !keepOnCancel) throw ctx.cancelled.reason;
  return { content: [{ type: 'ref/stream', streamTag: DOWNLOAD_STREAM_TAG, mimeType: 'application/octet-stream' }] };
}

export const CORE_TOOLS: readonly ServerTool[] = [echoTool, addTool, slowTool, failTool, raiseTool, logTool, sampleTool, elicitTool, downloadTool];
