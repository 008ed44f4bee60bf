// The `client` command exits soon after its summary: a client that never closes nor exits (and ignores SIGTERM).
import { describe } from 'vitest';
import { exitsAfterSummary } from './client-exit.js';

describe('client command: exit after the report (never)', () => {
  exitsAfterSummary('never-exit');
  exitsAfterSummary('never-exit', 'http');
});
