// The mock client's faults that live in its WebTransport session: each is a hook
// (src/transport/webtransport/hooks.ts) that changes one thing the session does for the client.
import type { WtSessionHooks } from '../../transport/webtransport/hooks.js';
import { MOCK_CLIENT_FAULT as F, type ClientFaults } from './faults.js';

/** The session hooks `faults` call for (none for a correct client). */
export function clientSessionHooks(faults: ClientFaults): WtSessionHooks {
  const hooks: WtSessionHooks = {};
  // FAULT accept-injected-stream: the session delivers a stream whose request id was never sent.
  if (faults.has(F.acceptInjectedStream)) hooks.injectedStream = () => 'accept';
  // FAULTs requests-after-shutdown, stream-opened-after-shutdown: the session stays open after the
  // server's $/shutdown (and streams may still be opened); close-on-shutdown: it closes at once.
  if (faults.has(F.requestsAfterShutdown) || faults.has(F.streamAfterShutdown)) hooks.shutdownReceived = () => 'ignore';
  else if (faults.has(F.closeOnShutdown)) hooks.shutdownReceived = () => 'close-now';
  // FAULT reset-instead-of-close: the session drained after the server's $/shutdown ends by a transport error.
  if (faults.has(F.resetInsteadOfClose)) hooks.drained = (view) => view.resetTransport('drained after $/shutdown (fault)');
  // FAULT session-kept-after-control-end: the session stays open after the server ended its control stream.
  if (faults.has(F.controlStreamEndIgnored)) hooks.controlStreamEnded = () => 'keep-open';
  // FAULT split-frame-lost: a control frame whose bytes came in more than one read is dropped.
  if (faults.has(F.splitFrameDropped)) hooks.chunkArrived = () => 'drop-buffered';
  // FAULTs partial-frame-served, zero-length-frame-unanswered, encoding-mismatch-unanswered.
  const partial = faults.has(F.partialFrameServed);
  const empty = faults.has(F.zeroLengthFrameUnanswered);
  const mismatch = faults.has(F.encodingMismatchUnanswered);
  if (partial || empty || mismatch) {
    hooks.frameRefused = (error, atEnd) => {
      if (atEnd && partial) return 'serve-partial-body';
      if ((error.code === 'FRAME_EMPTY' && empty) || (error.code === 'ENCODING_MISMATCH' && mismatch)) return 'unanswered';
      return 'answer';
    };
  }
  // FAULT binding-error-id-zero: the errors about frames and streams of no request carry id 0.
  if (faults.has(F.bindingErrorIdZero)) hooks.bindingErrorId = () => 0;
  // FAULT truncated-header-closes-session.
  if (faults.has(F.truncatedHeaderClosesSession)) hooks.truncatedStreamHeader = () => 'close-session';
  return hooks;
}
