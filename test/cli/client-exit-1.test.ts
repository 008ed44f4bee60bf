// The `client` command exits soon after its summary: clients that close their sessions early or leave abruptly.
import { describe } from 'vitest';
import { exitsAfterSummary } from './client-exit.js';

describe('client command: exit after the report (early, abrupt)', () => {
  exitsAfterSummary('early-close');
  exitsAfterSummary('abrupt-exit');
  exitsAfterSummary('early-close', 'http');
});
