import { safeDecode, type SimRequest } from '../http/sim-request.js';
import type { SimResponse } from '../http/sim-response.js';
import type { ProviderApi, SimulatorState } from '../simulator-state.js';
import { activateBounce, outboundDetails, searchOutbound, sendEmail } from './postmark-email.js';
import { postmarkError, postmarkFault } from './postmark-errors.js';

/** `X-Postmark-Server-Token`: missing or wrong → 401 with ErrorCode 10, as Postmark answers. */
function authenticate(state: SimulatorState, header: string | string[] | undefined): SimResponse | undefined {
  const token = Array.isArray(header) ? header[0] : header;
  if (!token) {
    return postmarkError(401, 10, 'No Account or Server API tokens were supplied in the HTTP headers. Please add a header for either X-Postmark-Server-Token or X-Postmark-Account-Token.');
  }
  if (token !== state.credentials.postmark.serverToken) {
    return postmarkError(401, 10, 'The Server Token you provided in the X-Postmark-Server-Token request header was invalid. Please verify that you are using a valid token.');
  }
  return undefined;
}

/** GET /server: the server the token belongs to. */
function server(state: SimulatorState): SimResponse {
  return {
    status: 200,
    json: {
      ID: state.postmark.serverId,
      Name: 'Switchboard (simulated)',
      ApiTokens: [state.credentials.postmark.serverToken],
      Color: 'blue',
      SmtpApiActivated: true,
      RawEmailEnabled: false,
      DeliveryType: 'Live',
      ServerLink: `https://account.postmarkapp.com/servers/${state.postmark.serverId}/streams`,
      InboundAddress: `inbound-${state.postmark.serverId}@inbound.postmarkapp.com`,
      InboundHookUrl: '',
      BounceHookUrl: '',
      OpenHookUrl: '',
      DeliveryHookUrl: '',
      PostFirstOpenOnly: false,
      InboundDomain: '',
      InboundHash: `inbound-${state.postmark.serverId}`,
      InboundSpamThreshold: 0,
      TrackOpens: false,
      TrackLinks: 'None',
      IncludeBounceContentInHook: false,
      ClickHookUrl: '',
      EnableSmtpApiErrorHooks: false,
    },
  };
}

/** The subset of Postmark's server API that Switchboard's postmark driver uses. */
export function postmarkApi(state: SimulatorState): ProviderApi {
  return {
    provider: 'postmark',
    faultResponse: postmarkFault,
    handle(req: SimRequest): SimResponse {
      const refused = authenticate(state, req.headers['x-postmark-server-token']);
      if (refused) return refused;
      const segments = req.path.split('/').filter(Boolean).map(safeDecode);
      const [first, second, third, fourth] = segments;
      if (req.method === 'POST' && segments.length === 1 && first === 'email') return sendEmail(state, req);
      if (req.method === 'GET' && first === 'messages' && second === 'outbound') {
        if (segments.length === 2) return searchOutbound(state, req.query);
        if (segments.length === 4 && third && fourth === 'details') return outboundDetails(state, third);
      }
      if (req.method === 'GET' && segments.length === 1 && first === 'server') return server(state);
      if (req.method === 'PUT' && first === 'bounces' && second && third === 'activate' && segments.length === 3) return activateBounce(state, second);
      return postmarkError(404, 0, `No Postmark endpoint ${req.method} ${req.path}.`);
    },
  };
}
