// Opens the mock client's connection to a target: an https:// URL is a WebTransport session (001),
// an http:// URL a Streamable HTTP endpoint, `{ stdio: "cmd" }` a server started as a child process.
import type { Connection } from '../../transport/connection.js';
import { connectHttp } from '../../transport/http/index.js';
import { spawnStdio } from '../../transport/stdio/index.js';
import type { Transcript } from '../../transport/transcript.js';
import { connectWebTransport } from '../../transport/webtransport/client.js';
import { MockClientTargetError } from './errors.js';
import { MOCK_CLIENT_FAULT as F, type ClientFaults } from './faults.js';

export type MockClientTarget =
  | {
      url: string;
      /** WebTransport: SHA-256 of the server certificate (hex), as serverCertificateHashes. */
      certificateHash?: string;
      /** WebTransport: PEM CA file the server certificate must verify against. */
      caFile?: string;
      /** Streamable HTTP: headers added to every request (e.g. Authorization). */
      headers?: Record<string, string>;
    }
  | {
      /** A command line (or its argv words) starting a server that speaks MCP on its stdio. */
      stdio: string | readonly string[];
      cwd?: string;
      env?: Record<string, string>;
    };

export interface OpenOptions {
  faults: ClientFaults;
  transcript: Transcript;
  /** Deadline for a WebTransport session to be established. */
  timeoutMs?: number;
}

/** Opens the connection the mock client speaks over (nothing is sent yet). */
export async function openConnection(target: MockClientTarget, options: OpenOptions): Promise<Connection> {
  const { faults, transcript } = options;
  if ('stdio' in target) {
    const empty = typeof target.stdio === 'string' ? target.stdio.trim() === '' : target.stdio.length === 0;
    if (empty) throw new MockClientTargetError('stdio: give the command line that starts the server');
    return spawnStdio(target.stdio, { transcript, ...(target.cwd !== undefined ? { cwd: target.cwd } : {}), ...(target.env !== undefined ? { env: target.env } : {}) });
  }
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    throw new MockClientTargetError(`url: ${JSON.stringify(target.url)} is not a URL`);
  }
  if (url.protocol === 'https:') {
    return connectWebTransport(target.url, {
      ...(target.certificateHash !== undefined ? { certificateHash: target.certificateHash } : {}),
      ...(target.caFile !== undefined ? { caFile: target.caFile } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      transcript,
      // A real client answers what the binding asks a receiver to answer; faults leave one out.
      answerErrors: {
        parseErrors: !faults.has(F.parseErrorUnanswered),
        streamInjection: !faults.has(F.injectionUnreported),
        streamReferences: !faults.has(F.danglingStreamRefIgnored),
      },
      hooks: () => ({
        // FAULT accept-injected-stream: the session delivers a stream whose request id was never sent.
        ...(faults.has(F.acceptInjectedStream) ? { injectedStream: () => 'accept' as const } : {}),
        // FAULT requests-after-shutdown: the session stays open after the server's $/shutdown.
        ...(faults.has(F.requestsAfterShutdown) ? { shutdownReceived: () => 'ignore' as const } : {}),
      }),
      // FAULT oversized-frame: the session no longer refuses frames above the server's maxMessageSize.
      raw: faults.has(F.oversizedFrame),
    });
  }
  if (url.protocol === 'http:') {
    return connectHttp(url, { eventStream: true, transcript, ...(target.headers !== undefined ? { headers: target.headers } : {}) });
  }
  throw new MockClientTargetError(`url: ${JSON.stringify(target.url)} must start with https:// (WebTransport) or http:// (Streamable HTTP)`);
}
