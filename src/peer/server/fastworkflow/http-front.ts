// The FastWorkflow transport faults (FW-TRANSPORT-1, -4, -5) and the alternate reading of
// FW-TRANSPORT-4 (400 Bad Request for an Mcp-Session-Id the server never issued; a terminated one
// stays 404) live in front of the mock's Streamable HTTP listener: a small reverse proxy on its
// own port changes exactly what the fault or the reading says and passes everything else through
// unchanged. Without either the listener is used as it is.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { FW_FAULT as F, FW_HTTP_FAULTS } from './faults.js';
import { FastWorkflowOptionsError } from './errors.js';

/** What the front needs of the listener: where it is and how to stop it. */
export interface HttpEndpointHandle {
  readonly url: string;
  close(): Promise<void>;
}

/** Headers that describe one hop or a body the front rewrites. */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

function forwardedHeaders(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_HEADERS.has(name.toLowerCase())));
}

/** One JSON-RPC message per line for a JSON body (a batch becomes one line per member). */
function jsonToNdjson(body: string): string {
  try {
    const value: unknown = JSON.parse(body);
    return (Array.isArray(value) ? value : [value]).map((message) => `${JSON.stringify(message)}\n`).join('');
  } catch {
    return body.endsWith('\n') ? body : `${body}\n`;
  }
}

/** Turns an SSE stream into NDJSON as it arrives: each `data:` line becomes one line. */
function sseToNdjson(upstream: http.IncomingMessage, res: http.ServerResponse): void {
  let buffered = '';
  upstream.setEncoding('utf8');
  upstream.on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) if (line.startsWith('data:')) res.write(`${line.slice(5).trim()}\n`);
  });
  upstream.on('end', () => {
    if (buffered.startsWith('data:')) res.write(`${buffered.slice(5).trim()}\n`);
    res.end();
  });
}

export interface HttpFrontOptions {
  /** The status for an Mcp-Session-Id the server never issued (FW-TRANSPORT-4): 404 (default) or 400. */
  unknownSession?: 404 | 400;
}

/**
 * Puts the transport faults that are on, and the reading of `options`, in front of `listener`;
 * returns the listener itself when there is nothing to change. Closing the returned handle closes
 * the front and the listener.
 */
export async function withFastWorkflowHttpFront(listener: HttpEndpointHandle, faults: { has(name: string): boolean }, options: HttpFrontOptions = {}): Promise<HttpEndpointHandle> {
  const neverIssued400 = options.unknownSession === 400;
  if (!FW_HTTP_FAULTS.some((name) => faults.has(name)) && !neverIssued400) return listener;
  const ndjson = faults.has(F.answersAsNdjson);
  const unknownSession400 = faults.has(F.unknownSessionNot404);
  const missingSession404 = faults.has(F.missingSessionNot400);
  /** Every Mcp-Session-Id the listener has issued (terminated ones included). */
  const issued = new Set<string>();
  let upstreamUrl: URL;
  try {
    upstreamUrl = new URL(listener.url);
  } catch (error) {
    throw new FastWorkflowOptionsError('listener', `not a URL: ${JSON.stringify(listener.url)} (${(error as Error).message})`);
  }
  const agent = new http.Agent({ keepAlive: true });

  const server = http.createServer((req, res) => {
    const upstreamRequest = http.request(
      { host: upstreamUrl.hostname, port: upstreamUrl.port, path: req.url, method: req.method, headers: forwardedHeaders(req.headers), agent },
      (upstream) => {
        const status = upstream.statusCode ?? 502;
        const headers = forwardedHeaders(upstream.headers);
        const issuedNow = upstream.headers['mcp-session-id'];
        if (typeof issuedNow === 'string') issued.add(issuedNow);
        const asked = req.headers['mcp-session-id'];
        if (status === 404 && typeof asked === 'string' && (unknownSession400 || (neverIssued400 && !issued.has(asked)))) {
          upstream.resume();
          const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: No valid session ID provided' } });
          res.writeHead(400, { 'Content-Type': 'application/json' }).end(body);
          return;
        }
        // FAULT missing-session-not-400 (FW-TRANSPORT-5): a request without Mcp-Session-Id gets 404, not 400.
        if (status === 400 && asked === undefined && missingSession404) {
          upstream.resume();
          const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Not Found: no session' } });
          res.writeHead(404, { 'Content-Type': 'application/json' }).end(body);
          return;
        }
        const media = String(upstream.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
        if (ndjson && req.method === 'POST' && media === 'text/event-stream') {
          res.writeHead(status, { ...headers, 'content-type': 'application/x-ndjson' });
          res.flushHeaders();
          sseToNdjson(upstream, res);
          return;
        }
        if (ndjson && req.method === 'POST' && media === 'application/json') {
          const chunks: Buffer[] = [];
          upstream.on('data', (chunk: Buffer) => chunks.push(chunk));
          upstream.on('end', () => {
            res.writeHead(status, { ...headers, 'content-type': 'application/x-ndjson' }).end(jsonToNdjson(Buffer.concat(chunks).toString('utf8')));
          });
          return;
        }
        res.writeHead(status, headers);
        // An event stream may stay quiet for long: the client needs the head now.
        res.flushHeaders();
        upstream.pipe(res);
      },
    );
    upstreamRequest.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' }).end('the mock listener behind the fault front did not answer');
      else res.destroy();
    });
    // A client that goes away takes its upstream exchange (e.g. an open SSE stream) with it.
    res.on('close', () => upstreamRequest.destroy());
    req.pipe(upstreamRequest);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, upstreamUrl.hostname.replace(/^\[|\]$/g, ''), () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const front = new URL(upstreamUrl.href);
  front.port = String(port);
  let closing: Promise<void> | undefined;
  return {
    url: front.href,
    close: () =>
      (closing ??= (async () => {
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        agent.destroy();
        await listener.close();
      })()),
  };
}
