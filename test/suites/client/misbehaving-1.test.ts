// Every client case ends with a verdict about the client, never ERROR or TIMEOUT: frames the harness cannot read.
import { describe } from 'vitest';
import { misbehavingClientRun } from './misbehaving.js';

describe('client cases against misbehaving clients, shard 1', () => {
  misbehavingClientRun('garbage-frames', 'webtransport');
  misbehavingClientRun('cbor-trailing-bytes', 'webtransport');
});
