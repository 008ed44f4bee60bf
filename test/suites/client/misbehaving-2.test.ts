// Every client case ends with a verdict about the client, never ERROR or TIMEOUT: the other encoding, and $/shutdown with an immediate close.
import { describe } from 'vitest';
import { misbehavingClientRun } from './misbehaving.js';

describe('client cases against misbehaving clients, shard 2', () => {
  misbehavingClientRun('json-after-cbor', 'webtransport');
  misbehavingClientRun('shutdown-close', 'webtransport');
});
