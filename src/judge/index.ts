// The judge: the rules that decide what a message breaks, in one place for every observer (the
// runner's schema checks, the validating proxy, the suites' cases).
export * from './envelope.js';
export * from './exchange.js';
export * from './place.js';
export * from './problem.js';
export * from './prompt.js';
export * from './schema.js';
export * from './stream-rules.js';
export * from './transcript.js';
export * from './wire-faults.js';
