import type { SimRequest } from '../http/sim-request.js';
import type { SimResponse } from '../http/sim-response.js';
import type { ProviderApi, SimulatorState } from '../simulator-state.js';
import { checkToken, deepgramError, deepgramFault } from './deepgram-errors.js';
import { deepgramOf } from './deepgram-state.js';

/** Deepgram's REST subset: `GET /v1/projects` (what the driver's health probe calls). */
export function deepgramApi(state: SimulatorState): ProviderApi {
  return {
    provider: 'deepgram',
    faultResponse: deepgramFault,
    handle(req: SimRequest): SimResponse {
      const refused = checkToken(req.headers.authorization, state.credentials.deepgram.apiKey);
      if (refused) return refused;
      if (req.path === '/v1/listen') return deepgramError(426, 'Bad Request', 'Live transcription takes a WebSocket upgrade.');
      if (req.method === 'GET' && req.path === '/v1/projects') {
        return { status: 200, json: { projects: [{ project_id: deepgramOf(state).projectId, name: 'Switchboard simulator', mip_opt_out: false }] } };
      }
      return deepgramError(404, 'NOT_FOUND', `No such endpoint: ${req.method} ${req.path}`);
    },
  };
}
