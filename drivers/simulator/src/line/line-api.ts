import type { SimRequest } from '../http/sim-request.js';
import type { SimResponse } from '../http/sim-response.js';
import type { ProviderApi, SimulatorState } from '../simulator-state.js';
import { lineError, lineFault, lineHeaders } from './line-errors.js';
import { pushMessage, replyMessage } from './line-messages.js';

function authenticate(state: SimulatorState, authorization: string | undefined): SimResponse | undefined {
  if (!authorization?.startsWith('Bearer ')) {
    return lineError(401, "Authorization header required. Must follow the scheme, 'Authorization: Bearer <ACCESS TOKEN>'");
  }
  if (authorization.slice(7) !== state.credentials.line.channelAccessToken) {
    return lineError(401, 'Authentication failed. Confirm that the access token in the authorization header is valid.');
  }
  return undefined;
}

/** GET /v2/bot/info: the bot behind the configured channel. */
function botInfo(state: SimulatorState): SimResponse {
  const { botUserId } = state.credentials.line;
  return {
    status: 200,
    headers: lineHeaders(),
    json: {
      userId: botUserId,
      basicId: `@${botUserId.slice(1, 8)}`,
      displayName: 'Switchboard Simulator',
      chatMode: 'bot',
      markAsReadMode: 'auto',
    },
  };
}

/** The subset of the LINE Messaging API that Switchboard's line driver uses. */
export function lineApi(state: SimulatorState): ProviderApi {
  return {
    provider: 'line',
    faultResponse: lineFault,
    handle(req: SimRequest): SimResponse {
      const refused = authenticate(state, req.headers.authorization);
      if (refused) return refused;
      const route = `${req.method} ${req.path}`;
      if (route === 'POST /v2/bot/message/push') return pushMessage(state, req);
      if (route === 'POST /v2/bot/message/reply') return replyMessage(state, req);
      if (route === 'GET /v2/bot/info') return botInfo(state);
      return lineError(404, 'Not found');
    },
  };
}
