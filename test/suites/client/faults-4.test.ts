// Client fault self-test, shard 4 (see faults.ts).
import { describeFaultShard } from './faults.js';

describeFaultShard(4);
