// Client fault self-test, shard 8 (see faults.ts).
import { describeFaultShard } from './faults.js';

describeFaultShard(8);
