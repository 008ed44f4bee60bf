// The hook that sends a wizard's exported file on a WebTransport execution stream (profile C-32,
// WT-EXEC-10): the stream is opened on the client's interaction.respond that completes the session
// (a client-to-server request in flight, WT-ID-4), its header carries that request id and
// EXPORT_STREAM_TAG, and the respond result announces it with a ref/stream item (WT-EXEC-4).
// Where that is impossible (another transport, a string or out-of-range id, no stream to be had)
// the caller keeps the file inline in interaction.complete.
import { BINDING_METHOD } from '../../../protocol/methods.js';
import type { OutgoingExecutionStream } from '../../../transport/connection.js';
import { isU32 } from '../../../wire/exec-header.js';
import type { RequestContext } from '../extension.js';
import type { ExportPayload } from './session.js';

/** The tag of the export's execution stream: the only stream of its request, so unique (WT-EXEC-5). */
export const EXPORT_STREAM_TAG = 1;

/** Bytes written per write call (the whole file is never handed to the stream at once). */
const EXPORT_CHUNK = 64 * 1024;

/** The `ref/stream` content item announcing the stream (WT-EXEC-4). */
export interface RefStreamItem {
  type: 'ref/stream';
  streamTag: number;
  mimeType: string;
}

/** An export stream opened on a request: its header and the promise of the transfer's end. */
export interface ExportStream {
  requestId: number;
  streamTag: number;
  item: RefStreamItem;
  /** Settles (never rejects) once the bytes went out with FIN, or the stream was reset. */
  done: Promise<void>;
}

/** True when the request `ctx` answers can carry an execution stream: WebTransport and a header id (WT-ID-1). */
export function canStreamExport(ctx: RequestContext): boolean {
  return ctx.webtransport !== undefined && isU32(ctx.requestId);
}

/**
 * Opens the export stream on the request `ctx` answers and writes `file` to it in the background
 * (the respond answer does not wait for the transfer, WT-EXEC-8). Resolves undefined when no
 * stream can be had (not WebTransport, a non-header id, the stream limit reached, shutdown in
 * progress): the file then stays inline.
 */
export async function openExportStream(ctx: RequestContext, file: ExportPayload): Promise<ExportStream | undefined> {
  const wt = ctx.webtransport;
  const requestId = ctx.requestId;
  if (wt === undefined || !isU32(requestId)) return undefined;
  let stream: OutgoingExecutionStream;
  try {
    stream = await wt.openExecutionStream({ requestId, streamTag: EXPORT_STREAM_TAG });
  } catch {
    // LimitExceededError, InvalidStateError ($/shutdown), StreamOpenError: the inline fallback still delivers the file.
    return undefined;
  }
  return {
    requestId,
    streamTag: EXPORT_STREAM_TAG,
    item: { type: 'ref/stream', streamTag: EXPORT_STREAM_TAG, mimeType: file.mimeType },
    done: writeExport(ctx, stream, requestId, file.bytes),
  };
}

/** Raw bytes then FIN (WT-EXEC-6); a failed write is reported with $/streamError and a reset (WT-STREAMERR-1, -2). */
async function writeExport(ctx: RequestContext, stream: OutgoingExecutionStream, requestId: number, bytes: Uint8Array): Promise<void> {
  let written = 0;
  try {
    while (written < bytes.length) {
      if (ctx.signal.aborted) throw new ExportStreamAbandoned('the connection ended');
      const chunk = bytes.subarray(written, Math.min(bytes.length, written + EXPORT_CHUNK));
      await stream.write(chunk);
      written += chunk.length;
    }
    await stream.close();
  } catch (error) {
    const reason = `export failed after ${written} of ${bytes.length} bytes: ${(error as Error).message}`;
    if (!ctx.signal.aborted) {
      await ctx.sendNotification(BINDING_METHOD.streamError, { requestId, streamTag: EXPORT_STREAM_TAG, error: reason }).catch(() => undefined);
    }
    await stream.abort(reason).catch(() => undefined);
  }
}

/** The connection ended while the export was still being written. */
export class ExportStreamAbandoned extends Error {
  readonly code = 'EXPORT_STREAM_ABANDONED';
  constructor(message: string) {
    super(message);
    this.name = 'ExportStreamAbandoned';
  }
}
