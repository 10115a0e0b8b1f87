import { MemoryBus } from '../src/index.js';
import { describeBusConformance } from '../src/testing/index.js';

describeBusConformance('memory', async () => new MemoryBus());
