import { safeDecode, type SimRequest } from '../http/sim-request.js';
import type { SimResponse } from '../http/sim-response.js';
import type { ProviderApi, SimulatorState } from '../simulator-state.js';
import { NOT_FOUND, UNAUTHORIZED, telnyxError, telnyxFault, telnyxHeaders } from './telnyx-errors.js';
import { callAction, dialCall, retrieveCall } from './telnyx-calls.js';
import { retrieveMessage, sendMessage } from './telnyx-messages.js';

/** GET /v2/balance: what the driver's health probe reads. */
function balance(): SimResponse {
  return {
    status: 200,
    headers: telnyxHeaders(),
    json: { data: { record_type: 'balance', balance: '100.00', credit_limit: '0.00', available_credit: '100.00', pending: '0.00', currency: 'USD' } },
  };
}

/** The subset of Telnyx's v2 API that Switchboard's telnyx driver uses (messages, Call Control), authenticated by the API key as Bearer. */
export function telnyxApi(state: SimulatorState): ProviderApi {
  return {
    provider: 'telnyx',
    faultResponse: telnyxFault,
    handle(req: SimRequest): SimResponse {
      const authorization = req.headers.authorization;
      if (authorization !== `Bearer ${state.credentials.telnyx.apiKey}`) return telnyxError(401, UNAUTHORIZED);
      const route = `${req.method} ${req.path}`;
      if (route === 'POST /v2/messages') return sendMessage(state, req);
      if (route === 'GET /v2/balance') return balance();
      const id = /^\/v2\/messages\/([^/]+)$/.exec(req.path)?.[1];
      if (req.method === 'GET' && id !== undefined) return retrieveMessage(state, safeDecode(id));
      if (route === 'POST /v2/calls') return dialCall(state, req);
      const callId = /^\/v2\/calls\/([^/]+)$/.exec(req.path)?.[1];
      if (req.method === 'GET' && callId !== undefined) return retrieveCall(state, safeDecode(callId));
      const action = /^\/v2\/calls\/([^/]+)\/actions\/([a-z_]+)$/.exec(req.path);
      if (req.method === 'POST' && action) return callAction(state, safeDecode(action[1]!), action[2]!, req);
      return telnyxError(404, NOT_FOUND);
    },
  };
}
