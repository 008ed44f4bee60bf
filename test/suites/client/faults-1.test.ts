// Client fault self-test, shard 1 (see faults.ts).
import { describeFaultShard } from './faults.js';

describeFaultShard(1);
