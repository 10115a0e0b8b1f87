import type { Scenario } from '../types.js';
import { adapters } from './adapters.js';
import { baseline } from './baseline.js';
import { cluster } from './cluster.js';
import { failover } from './failover.js';
import { health } from './health.js';
import { ingest } from './ingest.js';
import { inbox } from './inbox.js';
import { mcpSessions } from './mcp-sessions.js';
import { provision } from './provision.js';
import { send } from './send.js';
import { soak } from './soak.js';
import { voice } from './voice.js';
import { voiceTurns } from './voice-turns.js';

/** Every scenario, in the order `npm run bench` runs them. A new scenario is one module plus one line here. */
export const SCENARIOS: readonly Scenario[] = [baseline, health, provision, ingest, inbox, adapters, send, mcpSessions, voice, voiceTurns, cluster, failover, soak];
