// Targets for the three transports: a WebTransport URL, a Streamable HTTP endpoint, or a command
// spawned per case over stdio. Each case gets its own session (and, for stdio, its own process).
import { connectHttp, type HttpClientOptions } from '../transport/http/index.js';
import { spawnStdio, type StdioClientOptions } from '../transport/stdio/index.js';
import { connectWebTransport, type WebTransportClientOptions } from '../transport/webtransport/index.js';
import type { Connection } from '../transport/connection.js';
import type { Target } from './case.js';
import { connectionTarget } from './target.js';

export interface TargetCommonOptions {
  /** Protocol version asked for in discovery. Default: the latest. */
  protocolVersion?: string;
  /** CLI arguments that select this target again in rerun commands. Defaults are given per transport. */
  rerunArgs?: string[];
  /** MCP Flow tools to test instead of probing every listed tool (--interactive-tool). */
  interactiveTools?: readonly string[];
}

/** Encodings the discovery offers on WebTransport (as `initializeSession` does). */
export const DISCOVERY_ENCODINGS = ['cbor', 'json'] as const;

/** A WebTransport server (seed 001); rerun default `--url <url>`. */
export function webTransportTarget(url: string, options: TargetCommonOptions & { client?: WebTransportClientOptions } = {}): Target {
  return connectionTarget({
    description: url,
    transport: 'webtransport',
    rerunArgs: options.rerunArgs ?? ['--url', url],
    connect: () => connectWebTransport(url, options.client ?? {}),
    initializeParams: { transport: { type: 'mcp-flow', version: '0.1', encodings: [...DISCOVERY_ENCODINGS] } },
    ...(options.protocolVersion !== undefined ? { protocolVersion: options.protocolVersion } : {}),
    ...(options.interactiveTools !== undefined ? { interactiveTools: options.interactiveTools } : {}),
  });
}

/**
 * The CLI arguments that select a Streamable HTTP endpoint again: `--url <url>`, plus
 * `--transport http` only for an https URL (which could also name a WebTransport server).
 */
export function httpRerunArgs(url: string): string[] {
  return /^http:/i.test(url) ? ['--url', url] : ['--url', url, '--transport', 'http'];
}

/** A Streamable HTTP endpoint; rerun default from `httpRerunArgs`. */
export function httpTarget(url: string, options: TargetCommonOptions & { client?: HttpClientOptions } = {}): Target {
  return connectionTarget({
    description: url,
    transport: 'http',
    rerunArgs: options.rerunArgs ?? httpRerunArgs(url),
    // Like a full client, each case listens on the GET stream too (server requests and notifications may arrive there).
    connect: () => connectHttp(url, { eventStream: true, ...options.client }),
    ...(options.protocolVersion !== undefined ? { protocolVersion: options.protocolVersion } : {}),
    ...(options.interactiveTools !== undefined ? { interactiveTools: options.interactiveTools } : {}),
  });
}

/**
 * Cases run at the same time over stdio, when each spawns its server, unless the run says: each
 * waits on its process to start (server-everything over stdio: 18 s with 4, 12-13 s with 8 on 2
 * cores; the mock, busy with its processes' CPU, the same either way). A server started in this
 * process (`launch`) gets the runner's default, as every other in-process target: its cases and
 * the harness share one event loop.
 */
export const STDIO_WORKERS = 8;

/**
 * How a stdio target starts its server for a connection. The default spawns the command as a child
 * process (spawnStdio); the self-test serves its own mock server in this process instead
 * (connectPiped), on the same stdio framing.
 */
export type StdioLaunch = (command: string, options: StdioClientOptions) => Promise<Connection>;

/** A server started as a child process per connection (or as `launch` starts it); rerun default `--stdio <command>`. */
export function stdioTarget(command: string, options: TargetCommonOptions & { client?: StdioClientOptions; launch?: StdioLaunch } = {}): Target {
  const launch = options.launch ?? spawnStdio;
  return connectionTarget({
    description: command,
    transport: 'stdio',
    ...(options.launch === undefined ? { defaultWorkers: STDIO_WORKERS } : {}),
    rerunArgs: options.rerunArgs ?? ['--stdio', command],
    connect: () => launch(command, options.client ?? {}),
    ...(options.protocolVersion !== undefined ? { protocolVersion: options.protocolVersion } : {}),
    ...(options.interactiveTools !== undefined ? { interactiveTools: options.interactiveTools } : {}),
  });
}
