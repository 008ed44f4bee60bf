// The implementation under test, as the `server` command's options (and the library's
// runServerConformance options) describe it: a WebTransport URL, a Streamable HTTP endpoint, or a
// command to spawn per case over stdio, with the TLS material, headers, protocol version and
// interactive tools that reach it. Every unusable value is a TargetOptionError naming its option
// as the command line spells it (the CLI shows it as a usage error, the library renames it).
import { readFileSync } from 'node:fs';
import { isProtocolVersion, PROTOCOL_VERSIONS } from '../protocol/methods.js';
import { splitCommandLine } from '../transport/stdio/index.js';
import { parseCertificateHash } from '../transport/webtransport/tls.js';
import { TargetOptionError } from './errors.js';
import { httpRerunArgs, httpTarget, stdioTarget, webTransportTarget, type StdioLaunch, type TargetCommonOptions } from './transport-targets.js';
import type { Target } from './case.js';

export type ServerTransport = 'webtransport' | 'http' | 'stdio';

/** The target options of the `server` command, as yargs parsed them. */
export interface ServerTargetArgs {
  url?: string;
  stdio?: string;
  /** `webtransport` or `http`; default from the URL scheme (https: WebTransport, http: Streamable HTTP). */
  transport?: string;
  /** `Name: value` (repeatable). */
  header?: readonly string[];
  ca?: string;
  certificateHash?: string;
  /** HTTP version under WebTransport. */
  http?: number;
  protocolVersion?: string;
  interactiveTool?: readonly string[];
}

export interface ServerTargetSpec {
  transport: ServerTransport;
  /** URL or command line. */
  location: string;
  headers: Record<string, string>;
  ca?: { file: string; pem: string };
  certificateHash?: string;
  http: 2 | 3;
  protocolVersion?: string;
  interactiveTools?: string[];
  /** The options that select this target again, for rerun commands (never header values). */
  rerunArgs: string[];
}

/** RFC 9110 token characters of a field name. */
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function single(option: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw new TargetOptionError(option, `given ${value.length} times; give it once`);
  if (typeof value !== 'string' || value.trim() === '') throw new TargetOptionError(option, 'needs a non-empty value');
  return value;
}

/** Parses `Name: value` headers; a repeated name is refused rather than silently merged. */
export function parseHeaders(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  const seen = new Set<string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon < 0 ? '' : line.slice(0, colon).trim();
    if (colon < 0 || !FIELD_NAME.test(name)) throw new TargetOptionError('--header', `${JSON.stringify(line)} is not of the form "Name: value"`);
    const value = line.slice(colon + 1).trim();
    if (/[\r\n\0]/.test(value)) throw new TargetOptionError('--header', `the value of ${name} contains a line break or NUL`);
    if (seen.has(name.toLowerCase())) throw new TargetOptionError('--header', `${name} is given twice`);
    seen.add(name.toLowerCase());
    headers[name] = value;
  }
  return headers;
}

/** Checks the target options and says what they point at. */
export function parseServerTarget(args: ServerTargetArgs): ServerTargetSpec {
  const url = single('--url', args.url);
  const stdio = single('--stdio', args.stdio);
  if (url === undefined && stdio === undefined) throw new TargetOptionError('server', 'name the server under test with --url URL or --stdio "command"');
  if (url !== undefined && stdio !== undefined) throw new TargetOptionError('--stdio', 'give either --url or --stdio, not both');
  const headerLines = args.header ?? [];
  const interactiveTools = args.interactiveTool?.map((name) => {
    if (typeof name !== 'string' || name.trim() === '') throw new TargetOptionError('--interactive-tool', 'a tool name must not be empty');
    return name;
  });
  const protocolVersion = single('--protocol-version', args.protocolVersion);
  if (protocolVersion !== undefined && !isProtocolVersion(protocolVersion)) {
    throw new TargetOptionError('--protocol-version', `${JSON.stringify(protocolVersion)} is not a protocol version this tool knows (${PROTOCOL_VERSIONS.join(', ')})`);
  }
  const http = args.http ?? 2;
  if (http !== 2 && http !== 3) throw new TargetOptionError('--http', `must be 2 or 3, got ${String(http)}`);
  const common = {
    http: http as 2 | 3,
    ...(protocolVersion !== undefined ? { protocolVersion } : {}),
    ...(interactiveTools !== undefined ? { interactiveTools } : {}),
  };
  // Options the rerun command repeats (besides the target itself).
  const extraRerun = [
    ...(protocolVersion !== undefined ? ['--protocol-version', protocolVersion] : []),
    ...(interactiveTools ?? []).flatMap((name) => ['--interactive-tool', name]),
  ];

  if (stdio !== undefined) {
    if (args.transport !== undefined) throw new TargetOptionError('--transport', 'applies to --url only (--stdio is its own transport)');
    for (const [option, value] of [['--header', headerLines.length > 0 ? headerLines : undefined], ['--ca', args.ca], ['--certificate-hash', args.certificateHash]] as const) {
      if (value !== undefined) throw new TargetOptionError(option, 'has no meaning for a --stdio target');
    }
    try {
      splitCommandLine(stdio);
    } catch (error) {
      throw new TargetOptionError('--stdio', (error as Error).message, { cause: error });
    }
    return { transport: 'stdio', location: stdio, headers: {}, ...common, rerunArgs: ['--stdio', stdio, ...extraRerun] };
  }

  let parsed: URL;
  try {
    parsed = new URL(url!);
  } catch {
    throw new TargetOptionError('--url', `${JSON.stringify(url)} is not a URL`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new TargetOptionError('--url', `${JSON.stringify(url)} is neither https: (WebTransport, or Streamable HTTP with --transport http) nor http: (Streamable HTTP)`);
  }
  const transportArg = single('--transport', args.transport);
  if (transportArg !== undefined && transportArg !== 'webtransport' && transportArg !== 'http') {
    throw new TargetOptionError('--transport', `must be webtransport or http, got ${JSON.stringify(transportArg)}`);
  }
  const transport: ServerTransport = transportArg ?? (parsed.protocol === 'https:' ? 'webtransport' : 'http');
  if (transport === 'webtransport' && parsed.protocol !== 'https:') throw new TargetOptionError('--url', 'WebTransport needs an https: URL');

  let ca: ServerTargetSpec['ca'];
  const caFile = single('--ca', args.ca);
  if (caFile !== undefined) {
    if (parsed.protocol === 'http:') throw new TargetOptionError('--ca', 'has no meaning for a plain http: URL');
    let pem: string;
    try {
      pem = readFileSync(caFile, 'utf8');
    } catch (error) {
      throw new TargetOptionError('--ca', `cannot read ${caFile}: ${(error as Error).message}`, { cause: error });
    }
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new TargetOptionError('--ca', `${caFile} holds no PEM certificate`);
    ca = { file: caFile, pem };
  }
  const certificateHash = single('--certificate-hash', args.certificateHash);
  if (certificateHash !== undefined) {
    if (transport !== 'webtransport') throw new TargetOptionError('--certificate-hash', 'pins a WebTransport server certificate; for Streamable HTTP over https use --ca');
    try {
      parseCertificateHash(certificateHash);
    } catch (error) {
      throw new TargetOptionError('--certificate-hash', (error as Error).message, { cause: error });
    }
  }
  const headers = parseHeaders(headerLines);
  if (transport === 'webtransport' && headerLines.length > 0) {
    throw new TargetOptionError('--header', 'the WebTransport client cannot add headers to its CONNECT request; --header applies to Streamable HTTP');
  }
  const targetArgs = transport === 'http' ? httpRerunArgs(url!) : ['--url', url!];
  const rerunArgs = [
    ...targetArgs,
    ...(ca !== undefined ? ['--ca', ca.file] : []),
    ...(certificateHash !== undefined ? ['--certificate-hash', certificateHash] : []),
    ...(transport === 'webtransport' && http === 3 ? ['--http', '3'] : []),
    ...extraRerun,
  ];
  return {
    transport,
    location: url!,
    headers,
    ...(ca !== undefined ? { ca } : {}),
    ...(certificateHash !== undefined ? { certificateHash } : {}),
    ...common,
    rerunArgs,
  };
}

/**
 * The harness Target for a checked spec; `keptMessageBytes` is each connection's transcript limit
 * per message; `launchStdio` starts a stdio server instead of spawning its command.
 */
export function serverTarget(spec: ServerTargetSpec, keptMessageBytes?: number, launchStdio?: StdioLaunch): Target {
  const transcript = keptMessageBytes === undefined ? {} : { transcript: { maxMessageBytes: keptMessageBytes } };
  const common: TargetCommonOptions = {
    rerunArgs: spec.rerunArgs,
    ...(spec.protocolVersion !== undefined ? { protocolVersion: spec.protocolVersion } : {}),
    ...(spec.interactiveTools !== undefined ? { interactiveTools: spec.interactiveTools } : {}),
  };
  switch (spec.transport) {
    case 'stdio':
      return stdioTarget(spec.location, { ...common, client: transcript, ...(launchStdio !== undefined ? { launch: launchStdio } : {}) });
    case 'http':
      return httpTarget(spec.location, {
        ...common,
        client: {
          ...transcript,
          ...(Object.keys(spec.headers).length > 0 ? { headers: spec.headers } : {}),
          ...(spec.ca !== undefined ? { tls: { ca: spec.ca.pem } } : {}),
        },
      });
    case 'webtransport':
      return webTransportTarget(spec.location, {
        ...common,
        client: {
          ...transcript,
          http: spec.http,
          ...(spec.certificateHash !== undefined ? { certificateHash: spec.certificateHash } : {}),
          ...(spec.ca !== undefined ? { caFile: spec.ca.file } : {}),
        },
      });
  }
}
