// An in-memory Connection pair for tests: two linked connections that carry newline-delimited
// JSON exactly as stdio does (same decoder, same faults, same transcript entries), without a
// child process. `kind` is 'stdio' because that is the transport being simulated; neither side
// has the stdio facet (there is no process).
import { Writable } from 'node:stream';
import { LineConnection, type LineConnectionOptions } from '../stdio/line-connection.js';

export interface MemoryPairOptions {
  /** Options of the client side (its output is recorded as stdin). */
  client?: LineConnectionOptions;
  /** Options of the server side (its output is recorded as stdout). */
  server?: LineConnectionOptions;
}

export interface MemoryPair {
  /** The client's end: what it sends arrives at `server`. */
  client: MemoryConnection;
  /** The server's end: what it sends arrives at `client`. */
  server: MemoryConnection;
}

/** One end of an in-memory pair. */
export class MemoryConnection extends LineConnection {
  #peer: MemoryConnection | undefined;
  #delivery: Promise<void> = Promise.resolve();

  constructor(options: LineConnectionOptions, role: 'client' | 'server') {
    super(options, role === 'client' ? { input: 'stdout', output: 'stdin' } : { input: 'stdin', output: 'stdout' });
    this.attachOutput(
      new Writable({
        write: (chunk: Buffer, _encoding, callback) => {
          const peer = this.#peer;
          // Delivered asynchronously and in order, as a pipe would.
          this.#delivery = this.#delivery.then(() => {
            if (peer && !peer.isClosed) peer.receive(new Uint8Array(chunk));
          });
          callback();
        },
      }),
    );
    this.transcript.event(`memory connection open (${role})`);
  }

  /** Links the two ends (called once by createMemoryPair). */
  link(peer: MemoryConnection): void {
    this.#peer = peer;
  }

  /** Ends both sides: this one locally, the peer as remote (like closing a pipe). */
  async close(reason = 'closed'): Promise<void> {
    if (this.isClosed) return;
    await this.#delivery;
    this.finish({ initiator: 'local', reason });
    const peer = this.#peer;
    if (peer && !peer.isClosed) {
      peer.receiveEnd();
      peer.finish({ initiator: 'remote', reason });
    }
  }
}

/** Two linked connections: `client.send(m)` arrives at `server.next()` and vice versa. */
export function createMemoryPair(options: MemoryPairOptions = {}): MemoryPair {
  const client = new MemoryConnection(options.client ?? {}, 'client');
  const server = new MemoryConnection(options.server ?? {}, 'server');
  client.link(server);
  server.link(client);
  return { client, server };
}
