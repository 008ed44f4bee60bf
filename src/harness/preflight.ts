// The pre-flight initialize: before a run, one initialize on its own connection shows whether the
// target can be tested at all. Only definite evidence stops the run (exit 2 in the CLI), each as one
// line that says what came back: the connection could not be made (with a hint when a WebTransport
// server's certificate is not trusted), an HTTP answer that no MCP endpoint gives (401/403/404/405,
// or a body that is neither JSON nor an event stream: "404 (text/html)"), a stdio command that
// exited before answering (its exit status and the telling line of its stderr), a session closed
// before the answer. Any JSON-RPC answer, even an error, lets the run go on: judging it is the
// cases' work. Silence until the deadline lets it go on too (discovery then records it).
import { connect as tlsConnect } from 'node:tls';
import { request } from '../protocol/jsonrpc.js';
import { LATEST_PROTOCOL_VERSION } from '../protocol/methods.js';
import type { Connection, ConnectionFault, ReceivedMessage } from '../transport/connection.js';
import { ConnectFailedError, ConnectionError, TlsConfigError } from '../transport/errors.js';
import type { TranscriptChannel } from '../transport/transcript.js';
import { isRecord } from '../wire/index.js';
import type { Target } from './case.js';
import { PreflightFailedError, TargetUnreachableError } from './errors.js';
import { HARNESS_CLIENT_INFO } from './target.js';
import { DISCOVERY_ENCODINGS } from './transport-targets.js';

export interface PreflightOptions {
  /** How long to wait for the answer to initialize. */
  limitMs: number;
  /** Protocol version asked for. Default: the latest. */
  protocolVersion?: string;
  signal?: AbortSignal;
}

/** `answered`: a JSON-RPC answer (or a reply the cases must judge) came; `silent`: nothing before the deadline. */
export type PreflightOutcome = 'answered' | 'silent';

/** HTTP statuses no MCP endpoint gives to an initialize POST: the URL or the credentials are wrong. */
const NOT_AN_ENDPOINT = new Set([401, 403, 404, 405]);
/** How often the connection's faults are looked at while waiting (a fault has no event of its own). */
const FAULT_POLL_MS = 20;
/** How long a finished stdio command gets to report its exit status. */
const EXIT_WAIT_MS = 2000;
const REQUEST_ID = 'preflight-1';

function mediaType(headers: Record<string, string> | undefined): string | undefined {
  const value = headers?.['content-type'];
  return value === undefined ? undefined : value.split(';')[0]!.trim().toLowerCase();
}

function httpAnswer(channel: TranscriptChannel): string {
  if (channel.kind !== 'http') return 'answered';
  const type = mediaType(channel.headers);
  return `answered ${channel.status ?? '?'}${type === undefined ? ' without a content type' : ` (${type})`}`;
}

function statusHint(status: number | undefined): string {
  if (status === 401 || status === 403) return ': the endpoint wants credentials (pass them with --header "Authorization: ...")';
  if (status === 404 || status === 405) return ': is this the URL of the MCP endpoint?';
  return ', not a JSON-RPC answer to initialize';
}

/** An HTTP fault that shows the endpoint is not an MCP endpoint (a status or a body no MCP answer has). */
function definiteHttpFault(fault: ConnectionFault, url: string): string | undefined {
  const channel = fault.channel;
  if (channel.kind !== 'http' || channel.method !== 'POST') return undefined;
  if (channel.status === undefined) return fault.code === 'HTTP_EXCHANGE_FAILED' ? fault.message : undefined;
  const type = mediaType(channel.headers);
  const json = type === 'application/json' || type === 'text/event-stream' || (type !== undefined && type.endsWith('+json'));
  if (channel.status >= 400 || !json) return `POST ${channel.url ?? url} ${httpAnswer(channel)}${statusHint(channel.status)}`;
  return undefined;
}

/** The stderr line that says what went wrong: the first naming an error, else the first with text. */
export function tellingLine(lines: readonly string[]): string | undefined {
  const text = lines.map((line) => line.trim()).filter((line) => line !== '');
  return text.find((line) => /\b(error|exception|cannot|can't|not found|no such|denied|fatal|failed|unknown|invalid)\b/i.test(line)) ?? text[0];
}

async function whyClosed(connection: Connection, description: string): Promise<string> {
  const info = await connection.closed;
  const stdio = connection.stdio;
  if (stdio) {
    const exit = await Promise.race([stdio.exited, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), EXIT_WAIT_MS).unref())]);
    const how = exit === undefined ? 'closed its stdout' : exit.signal ? `was killed by ${exit.signal}` : `exited with code ${String(exit.code)}`;
    const line = tellingLine(stdio.stderrLines());
    return `the command ${JSON.stringify(description)} ${how} before answering initialize${line === undefined ? ' (nothing on stderr)' : `; stderr: ${line}`}`;
  }
  const details = [info.code === undefined ? undefined : `code ${info.code}`, info.reason].filter((part) => part !== undefined && part !== '').join(', ');
  return `${description} closed the ${connection.kind === 'webtransport' ? 'session' : 'connection'} before answering initialize${details === '' ? '' : ` (${details})`}`;
}

/**
 * Whether an https server's certificate fails verification (self-signed, unknown CA), asked over
 * plain TLS on the same port: the WebTransport library only says "handshake failed".
 */
async function certificateProblem(url: string): Promise<string | undefined> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return undefined;
  }
  if (target.protocol !== 'https:') return undefined;
  return new Promise((resolve) => {
    const socket = tlsConnect({
      host: target.hostname.replace(/^\[|\]$/g, ''),
      port: Number(target.port || 443),
      servername: /^[\d.]+$|:/.test(target.hostname) ? undefined : target.hostname,
      ALPNProtocols: ['h2'],
      rejectUnauthorized: true,
    });
    const done = (problem: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(problem);
    };
    const timer = setTimeout(() => done(undefined), 5000);
    socket.once('secureConnect', () => done(undefined));
    socket.once('error', (error: NodeJS.ErrnoException) => {
      const code = error.code ?? '';
      done(/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS_CERT/.test(code) ? `${code}: ${error.message}` : undefined);
    });
  });
}

/** The connect failure as TargetUnreachableError, with the certificate hint where it applies. */
async function unreachable(target: Target, error: unknown): Promise<TargetUnreachableError> {
  const { description, transport, rerunArgs } = target.describe();
  const trusted = rerunArgs.includes('--certificate-hash') || rerunArgs.includes('--ca');
  if (transport === 'webtransport' && !trusted && !rerunArgs.includes('--http') && (error instanceof ConnectFailedError || error instanceof TlsConfigError)) {
    const problem = await certificateProblem(description);
    if (problem !== undefined) {
      return new TargetUnreachableError(description, {
        cause: error,
        hint: `the server's certificate is not trusted (${problem}); for a self-signed certificate pass --certificate-hash <its SHA-256 hex>, for one signed by your own CA pass --ca <file.pem>`,
      });
    }
  }
  return new TargetUnreachableError(description, { cause: error });
}

/**
 * One initialize on a fresh connection (server targets). Resolves `answered` or `silent`; throws
 * TargetUnreachableError when no connection could be made and PreflightFailedError when what came
 * back shows the target cannot be tested.
 */
export async function preflight(target: Target, options: PreflightOptions): Promise<PreflightOutcome> {
  const { description, transport } = target.describe();
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let connection: Connection;
  try {
    connection = await target.connect(controller.signal);
  } catch (error) {
    options.signal?.removeEventListener('abort', onAbort);
    // Interrupted while connecting: the run reports itself interrupted, not the target unreachable.
    if (options.signal?.aborted) return 'silent';
    if (error instanceof ConnectionError) throw await unreachable(target, error);
    throw error;
  }
  let poll: NodeJS.Timeout | undefined;
  let deadline: NodeJS.Timeout | undefined;
  try {
    try {
      await connection.send(
        request(REQUEST_ID, 'initialize', {
          protocolVersion: options.protocolVersion ?? LATEST_PROTOCOL_VERSION,
          capabilities: {},
          clientInfo: HARNESS_CLIENT_INFO,
          ...(transport === 'webtransport' ? { transport: { type: 'mcp-flow', version: '0.1', encodings: [...DISCOVERY_ENCODINGS] } } : {}),
        }),
      );
    } catch (error) {
      if (options.signal?.aborted) return 'silent';
      // Streamable HTTP connects with the first request: a refused connection shows here.
      if (error instanceof ConnectFailedError) throw await unreachable(target, error);
      if (error instanceof ConnectionError && connection.isClosed) throw new PreflightFailedError(await whyClosed(connection, description));
      throw error;
    }
    type Step = { kind: 'answer'; received: ReceivedMessage } | { kind: 'closed' } | { kind: 'fault'; text: string } | { kind: 'replied' } | { kind: 'silent' };
    const steps: Promise<Step>[] = [
      connection
        .next((r) => isRecord(r.message) && !('method' in r.message) && (r.message.id === REQUEST_ID || (r.message.id === null && 'error' in r.message)), {
          signal: controller.signal,
        })
        .then((received): Step => ({ kind: 'answer', received }), (): Step => (connection.isClosed ? { kind: 'closed' } : { kind: 'silent' })),
      connection.closed.then((): Step => ({ kind: 'closed' })),
      new Promise<Step>((resolve) => (deadline = setTimeout(() => resolve({ kind: 'silent' }), options.limitMs))),
    ];
    // Something that came back and did not decode: over HTTP a status or a body no MCP endpoint
    // gives ends the run; anything else (a frame in the wrong encoding, a log line on stdout) is a
    // reply the cases judge, so the run goes on without waiting out the deadline.
    steps.push(
      new Promise<Step>((resolve) => {
        poll = setInterval(() => {
          // An HTTP error status whose body carried no JSON-RPC message (an HTML 404 page, a bare 405).
          for (const refusal of connection.http?.refusals() ?? []) {
            if (refusal.carriedMessage) continue;
            const type = refusal.contentType === '' ? ' without a content type' : ` (${refusal.contentType})`;
            resolve({ kind: 'fault', text: `POST ${description} answered ${refusal.status}${type}${statusHint(refusal.status)}` });
          }
          for (const fault of connection.faults()) {
            const text = transport === 'http' ? definiteHttpFault(fault, description) : undefined;
            resolve(text !== undefined ? { kind: 'fault', text } : { kind: 'replied' });
          }
        }, FAULT_POLL_MS);
      }),
    );
    const step = await Promise.race(steps);
    controller.abort();
    if (options.signal?.aborted) return 'silent';
    if (step.kind === 'answer') {
      const channel = step.received.channel;
      if (channel.kind === 'http' && channel.status !== undefined && NOT_AN_ENDPOINT.has(channel.status)) {
        throw new PreflightFailedError(`POST ${description} ${httpAnswer(channel)}${statusHint(channel.status)}`);
      }
      return 'answered';
    }
    if (step.kind === 'fault') throw new PreflightFailedError(step.text);
    if (step.kind === 'replied') return 'answered';
    if (step.kind === 'closed') {
      // An answer that came with the close still counts.
      if (connection.pending().some((r) => isRecord(r.message) && r.message.id === REQUEST_ID)) return 'answered';
      throw new PreflightFailedError(await whyClosed(connection, description));
    }
    return 'silent';
  } finally {
    clearInterval(poll);
    clearTimeout(deadline);
    options.signal?.removeEventListener('abort', onAbort);
    controller.abort();
    await connection.close('pre-flight done').catch(() => undefined);
  }
}
