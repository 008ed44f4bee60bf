// Every client case ends with a verdict about the client, never ERROR or TIMEOUT: sessions closed early or abandoned, or left silent (HTTP).
import { describe } from 'vitest';
import { misbehavingClientRun } from './misbehaving.js';

describe('client cases against misbehaving clients, shard 3', () => {
  misbehavingClientRun('early-close', 'webtransport');
  misbehavingClientRun('early-close', 'http');
  misbehavingClientRun('abrupt-exit', 'webtransport');
  misbehavingClientRun('abrupt-exit', 'http');
  misbehavingClientRun('silent-session', 'http');
});
