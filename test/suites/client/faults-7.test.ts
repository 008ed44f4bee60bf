// Client fault self-test, shard 7 (see faults.ts).
import { describeFaultShard } from './faults.js';

describeFaultShard(7);
