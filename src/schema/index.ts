// Public surface of the schema layer.
export * from './errors.js';
export * from './findings.js';
export * from './registry.js';
export * from './requirement.js';
