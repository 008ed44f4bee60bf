// Public surface of the FastWorkflow server profile.
export * from './command-syntax.js';
export * from './conversation-store.js';
export * from './errors.js';
export * from './extension.js';
export * from './faults.js';
export { PROMPTS } from './prompts.js';
export { ACTION_LOG_URI } from './resources.js';
export { DEFAULT_TIMEOUT_SECONDS, DEFAULT_USER } from './runtime.js';
export { FastWorkflowProfile, TRACE_LOGGER, type FastWorkflowTool } from './tools.js';
export { ALTERNATE_READINGS, RECOMMENDED_READINGS, resolveReadings, TRACE_DELIVERIES, type FailureStyles, type FastWorkflowReadings, type TraceDelivery } from './readings.js';
export type * from './types.js';
export { CONTEXTS, ROOT_CONTEXT, ITEM_CONTEXT, WORKFLOW_INFO, WORKFLOW_NAME } from './workflow.js';
