// Every client case ends with a verdict about the client, never ERROR or TIMEOUT: a session that stays silent (WebTransport).
import { describe } from 'vitest';
import { misbehavingClientRun } from './misbehaving.js';

describe('client cases against misbehaving clients, shard 5', () => {
  misbehavingClientRun('silent-session', 'webtransport');
});
