// Client fault self-test, shard 5 (see faults.ts).
import { describeFaultShard } from './faults.js';

describeFaultShard(5);
