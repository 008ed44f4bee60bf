// Public surface of the harness: cases, registry, selection, baseline, targets and the runner.
export * from './baseline.js';
export * from './case.js';
export * from './context.js';
export * from './errors.js';
export * from './registry.js';
export * from './rerun.js';
export * from './result.js';
export * from './runner.js';
export * from './judge-case.js';
export * from './schema-check.js';
export * from './selection.js';
export * from './target.js';
export * from './transport-targets.js';
export * from './client-process.js';
export * from './client-session.js';
export * from './client-target.js';
export * from './peer-evidence.js';
