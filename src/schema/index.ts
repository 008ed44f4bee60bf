// Public surface of the schema layer.
export * from './errors.js';
export * from './model.js';
export * from './registry.js';
