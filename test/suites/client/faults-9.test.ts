// Client fault self-test, shard 9 (see faults.ts).
import { describeFaultShard } from './faults.js';

describeFaultShard(9);
