// The validating proxy, its recorder and replay (docs: README "proxy" and "replay").
export { startProxy } from './proxy.js';
export type { ProxyOptions, RunningProxy } from './proxy.js';
export { ProxySession } from './session.js';
export { SessionValidator, RULE_REQUIREMENTS, WT_RULE_REQUIREMENTS, subjectOf } from './validator.js';
export type { ValidatorOptions } from './validator.js';
export { formatViolation } from './violation.js';
export type { Flow, Violation } from './violation.js';
export { parseListenSpec, listen, connectUpstream, probeUpstream, describeUpstream } from './endpoints.js';
export type { ListenSpec, Listener, UpstreamSpec } from './endpoints.js';
export { ProxyRecord, readRecordFile, parseRecord, sessionOf } from './record.js';
export type { RecordedSession } from './record.js';
export { replaySession, formatReplayedAnswer, diff } from './replay.js';
export type { ReplayedAnswer, ReplayDifference, ReplayOptions } from './replay.js';
export { ProxyError, ListenSpecError, UpstreamError, RecordFileError } from './errors.js';
