// Suite `bad-input`: seeded garbage (fast-check, replayable by seed and path): broken envelopes,
// wrong params types, unknown methods, huge and deep values on every transport, and bytes that do
// not parse sent the way each transport frames a message. The session must answer each with the
// profile's error code and keep answering ping.
import type { ConformanceCase } from '../../../../src/harness/index.js';
import { cases as messages } from './messages.js';
import { cases as transports } from './transports.js';

export const cases: readonly ConformanceCase[] = [...messages, ...transports];
