// Client fault self-test, shard 6 (see faults.ts).
import { describeFaultShard } from './faults.js';

describeFaultShard(6);
