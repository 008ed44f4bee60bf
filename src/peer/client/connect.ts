// Opens the mock client's connection to a target: an https:// URL is a WebTransport session (001),
// an http:// URL a Streamable HTTP endpoint, `{ stdio: "cmd" }` a server started as a child process.
import type { Connection } from '../../transport/connection.js';
import { connectHttp } from '../../transport/http/index.js';
import { spawnStdio } from '../../transport/stdio/index.js';
import type { Transcript } from '../../transport/transcript.js';
import { connectWebTransport } from '../../transport/webtransport/client.js';
import type { LibrarySession } from '../../transport/webtransport/library-session.js';
import { answersBindingFaults } from './binding-faults.js';
import { MockClientTargetError } from './errors.js';
import { MOCK_CLIENT_FAULT as F, type ClientFaults } from './faults.js';
import { clientSessionHooks } from './session-hooks.js';

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
    // Faults that change how binding faults are answered have the client answer them (binding-faults.ts).
    const clientAnswers = answersBindingFaults(faults);
    let library: LibrarySession | undefined;
    const connection = await connectWebTransport(target.url, {
      ...(target.certificateHash !== undefined ? { certificateHash: target.certificateHash } : {}),
      ...(target.caFile !== undefined ? { caFile: target.caFile } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      transcript,
      // A real client answers what the binding asks a receiver to answer; faults leave one out.
      answerErrors: {
        parseErrors: !clientAnswers && !faults.has(F.parseErrorUnanswered),
        streamInjection: !clientAnswers && !faults.has(F.injectionUnreported),
        streamReferences: !faults.has(F.danglingStreamRefIgnored),
      },
      // Faults that live in the session are its hooks (session-hooks.ts).
      hooks: () => clientSessionHooks(faults),
      // FAULT oversized-frame: the session no longer refuses frames above the server's maxMessageSize.
      raw: faults.has(F.oversizedFrame),
      // FAULT second-bidirectional-stream: the library session is kept to open one more bidirectional stream.
      ...(faults.has(F.secondBidirectionalStream) ? { onSession: (session: LibrarySession) => void (library = session) } : {}),
    });
    if (library) librarySessions.set(connection, library);
    return connection;
  }
  if (url.protocol === 'http:') {
    return connectHttp(url, { eventStream: true, transcript, ...(target.headers !== undefined ? { headers: target.headers } : {}) });
  }
  throw new MockClientTargetError(`url: ${JSON.stringify(target.url)} must start with https:// (WebTransport) or http:// (Streamable HTTP)`);
}

/** The library sessions kept for FAULT second-bidirectional-stream, by the connection they carry. */
const librarySessions = new WeakMap<Connection, LibrarySession>();

/**
 * FAULT second-bidirectional-stream: opens one more bidirectional stream on `connection` (only the
 * control stream may be one, WT-CONN-2) and writes a byte so the server learns of it.
 */
export async function openSecondBidirectionalStream(connection: Connection): Promise<void> {
  const library = librarySessions.get(connection);
  if (!library) return;
  const stream = await library.createBidirectionalStream();
  const writer = stream.writable.getWriter();
  await writer.write(new Uint8Array([0x00]));
  writer.releaseLock();
}
