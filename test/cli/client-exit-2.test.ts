// The `client` command exits soon after its summary: a client that keeps its sessions open 30 s after its scenario.
import { describe } from 'vitest';
import { exitsAfterSummary } from './client-exit.js';

describe('client command: exit after the report (late)', () => {
  exitsAfterSummary('late-close');
});
