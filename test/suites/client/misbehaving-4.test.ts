// Every client case ends with a verdict about the client, never ERROR or TIMEOUT: no session at all, or one closed late.
import { describe } from 'vitest';
import { misbehavingClientRun } from './misbehaving.js';

describe('client cases against misbehaving clients, shard 4', () => {
  misbehavingClientRun('no-session', 'webtransport');
  misbehavingClientRun('no-session', 'http');
  misbehavingClientRun('late-close', 'webtransport');
  misbehavingClientRun('late-close', 'http');
});
