// Client fault self-test, shard 3 (see faults.ts).
import { describeFaultShard } from './faults.js';

describeFaultShard(3);
