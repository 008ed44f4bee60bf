// The fastworkflow suite (seed 004 over Streamable HTTP); the cases live in ./fastworkflow/.
export { cases } from './fastworkflow/index.js';
