// Reading a peer's stream without letting it starve the event loop: after a stream has been read for
// a while without the loop turning (a peer flooding as fast as the socket or pipe allows), it is
// paused until the next turn, so timers (the deadlines that end a case) still fire on time. A
// stream that is read at a normal pace is never paused.
import type { Readable } from 'node:stream';

/** How long one stream may be read before the event loop gets a turn. */
const READ_SLICE_MS = 20;

/** Returns what to call after each chunk read from `stream`. */
export function pacedReading(stream: Readable): () => void {
  let sliceStart = performance.now();
  let paused = false;
  return () => {
    if (paused || performance.now() - sliceStart < READ_SLICE_MS) return;
    paused = true;
    stream.pause();
    setImmediate(() => {
      paused = false;
      sliceStart = performance.now();
      if (!stream.destroyed) stream.resume();
    });
  };
}
