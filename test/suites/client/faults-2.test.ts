// Client fault self-test, shard 2 (see faults.ts).
import { describeFaultShard } from './faults.js';

describeFaultShard(2);
