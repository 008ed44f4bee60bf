// The probes of the mock client's WebTransport binding faults (probes/webtransport.ts).
import { WEBTRANSPORT_PROBES } from './probes/webtransport.js';
import { describeProbes } from './probes/support.js';

describeProbes('each WebTransport binding fault changes what goes on the wire', WEBTRANSPORT_PROBES);
