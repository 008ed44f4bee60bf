// The `client` command exits soon after its summary: a client that never closes nor exits (and ignores
// SIGTERM). Over Streamable HTTP every suite (the one run whose HTTP sessions are still open when
// each case ends); over WebTransport, where late-close runs every suite with the session open, one.
import { describe } from 'vitest';
import { exitsAfterSummary } from './client-exit.js';

describe('client command: exit after the report (never)', () => {
  exitsAfterSummary('never-exit', 'wt', 'lifecycle');
  exitsAfterSummary('never-exit', 'http');
});
