// The probes of the mock client's MCP core and MCP Flow faults (probes/core.ts, probes/flow.ts).
import { CORE_PROBES } from './probes/core.js';
import { FLOW_PROBES } from './probes/flow.js';
import { describeProbes } from './probes/support.js';

describeProbes('each MCP core fault changes what goes on the wire', CORE_PROBES);
describeProbes('each MCP Flow fault changes what goes on the wire', FLOW_PROBES);
