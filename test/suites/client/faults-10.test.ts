// Client fault self-test, shard 10 (see faults.ts).
import { describeFaultShard } from './faults.js';

describeFaultShard(10);
