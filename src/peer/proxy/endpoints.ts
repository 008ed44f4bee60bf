// The proxy's two ends: the listener real clients connect to (`--listen wt|http|stdio`), where the
// proxy plays the server, and the upstream it connects to for each of them, where it plays the client.
import { access, constants } from 'node:fs/promises';
import net from 'node:net';
import { delimiter, isAbsolute, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { Connection, TransportKind } from '../../transport/connection.js';
import { ConnectionError } from '../../transport/errors.js';
import { connectHttp, listenHttp } from '../../transport/http/index.js';
import { serveStdio, spawnStdio, splitCommandLine } from '../../transport/stdio/index.js';
import { connectWebTransport, listenWebTransport } from '../../transport/webtransport/index.js';
import { webTransportBinding } from '../server/binding.js';
import { ListenSpecError, UpstreamError } from './errors.js';

/** Where the proxy listens for its client. */
export interface ListenSpec {
  transport: TransportKind;
  /** wt, http: the port (0: any free port). */
  port: number;
}

const LISTEN_NAMES: Record<string, TransportKind> = { wt: 'webtransport', webtransport: 'webtransport', http: 'http', stdio: 'stdio' };

/** Parses `wt[:port]`, `http[:port]` or `stdio`; throws ListenSpecError naming what is wrong. */
export function parseListenSpec(spec: string): ListenSpec {
  const text = spec.trim();
  const [name = '', port, ...rest] = text.split(':');
  const transport = LISTEN_NAMES[name.toLowerCase()];
  if (transport === undefined) throw new ListenSpecError(spec, `unknown transport ${JSON.stringify(name)}`);
  if (rest.length > 0) throw new ListenSpecError(spec, 'too many ":" parts');
  if (port === undefined) return { transport, port: 0 };
  if (transport === 'stdio') throw new ListenSpecError(spec, 'stdio takes no port');
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65_535) throw new ListenSpecError(spec, `port ${JSON.stringify(port)} is not an integer in 0..65535`);
  return { transport, port: Number(port) };
}

export interface ListenerOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** stdio: the streams to serve instead of this process's stdin and stdout. */
  stdio?: { stdin: Readable; stdout: Writable };
  /** Called with each client connection. */
  onConnection: (connection: Connection) => void;
}

export interface Listener {
  readonly transport: TransportKind;
  /** https://host:port/mcp (wt), http://host:port/mcp (http) or stdio:. */
  readonly url: string;
  /** wt: SHA-256 of the self-signed certificate, hex. */
  readonly certificateHash?: string;
  close(): Promise<void>;
}

export async function listen(spec: ListenSpec, options: ListenerOptions): Promise<Listener> {
  const host = options.host ?? '127.0.0.1';
  switch (spec.transport) {
    case 'webtransport': {
      // The binding's rules towards the client (admission before READY, result.transport), as the mock server has them.
      const server = await listenWebTransport({ host, port: spec.port, onConnection: options.onConnection, ...webTransportBinding().listener });
      return { transport: spec.transport, url: server.url, certificateHash: server.certificateHash, close: () => server.close() };
    }
    case 'http': {
      const listener = await listenHttp({ host, port: spec.port, onSession: options.onConnection });
      return { transport: spec.transport, url: listener.url, close: () => listener.close() };
    }
    case 'stdio': {
      const connection = serveStdio(options.stdio ? { stdin: options.stdio.stdin, stdout: options.stdio.stdout } : {});
      options.onConnection(connection);
      return { transport: spec.transport, url: 'stdio:', close: () => connection.close('proxy closing') };
    }
  }
}

/** The real server: a URL (WebTransport or Streamable HTTP) or a command spawned on stdio. */
export type UpstreamSpec =
  | { transport: 'webtransport'; url: string; certificateHash?: string; caFile?: string; http?: 2 | 3 }
  | { transport: 'http'; url: string; ca?: string; headers?: Record<string, string> }
  | { transport: 'stdio'; command: string };

/** How the upstream is named in messages. */
export function describeUpstream(spec: UpstreamSpec): string {
  return spec.transport === 'stdio' ? `stdio command ${JSON.stringify(spec.command)}` : `${spec.url} (${spec.transport})`;
}

/** Opens one upstream connection; failures become UpstreamError naming the upstream. */
export async function connectUpstream(spec: UpstreamSpec, options: { timeoutMs?: number } = {}): Promise<Connection> {
  try {
    switch (spec.transport) {
      case 'webtransport':
        return await connectWebTransport(spec.url, {
          ...(spec.certificateHash !== undefined ? { certificateHash: spec.certificateHash } : {}),
          ...(spec.caFile !== undefined ? { caFile: spec.caFile } : {}),
          http: spec.http ?? 2,
          timeoutMs: options.timeoutMs ?? 10_000,
          // The proxy forwards what the client sent; the server is the one to judge it.
          raw: true,
        });
      case 'http':
        return await connectHttp(spec.url, {
          eventStream: true,
          ...(spec.headers ? { headers: spec.headers } : {}),
          ...(spec.ca !== undefined ? { tls: { ca: spec.ca } } : {}),
        });
      case 'stdio':
        return await spawnStdio(spec.command);
    }
  } catch (error) {
    if (error instanceof ConnectionError) throw new UpstreamError(describeUpstream(spec), error.message, { cause: error });
    throw error;
  }
}

/**
 * Checks before listening that the upstream can be reached: a WebTransport session is opened and
 * closed, an HTTP endpoint's port must accept a TCP connection, a stdio command must name an
 * executable file.
 */
export async function probeUpstream(spec: UpstreamSpec, options: { timeoutMs?: number } = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  switch (spec.transport) {
    case 'webtransport': {
      const connection = await connectUpstream(spec, { timeoutMs });
      await connection.close('reachability probe');
      return;
    }
    case 'http': {
      const url = new URL(spec.url);
      const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
      const host = url.hostname.replace(/^\[|\]$/g, '');
      await new Promise<void>((resolve, reject) => {
        const socket = net.connect({ host, port });
        const timer = setTimeout(() => {
          socket.destroy();
          reject(new UpstreamError(describeUpstream(spec), `no TCP connection to ${host}:${port} within ${timeoutMs} ms`));
        }, timeoutMs);
        socket.once('connect', () => {
          clearTimeout(timer);
          socket.end();
          resolve();
        });
        socket.once('error', (error: NodeJS.ErrnoException) => {
          clearTimeout(timer);
          reject(new UpstreamError(describeUpstream(spec), `cannot connect to ${host}:${port}: ${error.code ?? error.message}`, { cause: error }));
        });
      });
      return;
    }
    case 'stdio': {
      let words: string[];
      try {
        words = splitCommandLine(spec.command);
      } catch (error) {
        throw new UpstreamError(describeUpstream(spec), (error as Error).message, { cause: error });
      }
      const program = words[0];
      if (program === undefined) throw new UpstreamError(describeUpstream(spec), 'the command is empty');
      if (!(await findExecutable(program))) throw new UpstreamError(describeUpstream(spec), `${program} is not an executable file (nor found on PATH)`);
      return;
    }
  }
}

async function findExecutable(program: string): Promise<boolean> {
  const candidates = program.includes('/') || isAbsolute(program) ? [program] : (process.env['PATH'] ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, program));
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK);
      return true;
    } catch {
      // next
    }
  }
  return false;
}
