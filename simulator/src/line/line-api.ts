import type { SimRequest } from '../http/sim-request.js';
import type { SimResponse } from '../http/sim-response.js';
import type { ProviderApi, SimulatorState } from '../simulator-state.js';
import type { LineBotCredentials } from '../types.js';
import { lineError, lineFault, lineHeaders } from './line-errors.js';
import { pushMessage, replyMessage } from './line-messages.js';

/** The bot whose access token the request carries, or LINE's 401. */
function authenticate(state: SimulatorState, authorization: string | undefined): LineBotCredentials | SimResponse {
  if (!authorization?.startsWith('Bearer ')) {
    return lineError(401, "Authorization header required. Must follow the scheme, 'Authorization: Bearer <ACCESS TOKEN>'");
  }
  const token = authorization.slice(7);
  const bot = state.credentials.lineBots.find((b) => b.channelAccessToken === token);
  return bot ?? lineError(401, 'Authentication failed. Confirm that the access token in the authorization header is valid.');
}

/** GET /v2/bot/info: the bot behind the access token. */
function botInfo(bot: LineBotCredentials): SimResponse {
  const { botUserId } = bot;
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
      const bot = authenticate(state, req.headers.authorization);
      if ('status' in bot) return bot;
      const route = `${req.method} ${req.path}`;
      if (route === 'POST /v2/bot/message/push') return pushMessage(state, req, bot);
      if (route === 'POST /v2/bot/message/reply') return replyMessage(state, req, bot);
      if (route === 'GET /v2/bot/info') return botInfo(bot);
      return lineError(404, 'Not found');
    },
  };
}
