import { MemoryBus } from '../src/internal.js';
import { describeBusConformance } from '../src/testing/index.js';

describeBusConformance('memory', async () => new MemoryBus());
