import { safeDecode, type SimRequest } from '../http/sim-request.js';
import type { SimResponse } from '../http/sim-response.js';
import type { ProviderApi, SimulatorState } from '../simulator-state.js';
import { getReceivedEmail, getSentEmail, listReceivedEmails, resendTimestamp, sendEmail } from './emails.js';
import { resendError, resendFault } from './resend-errors.js';

const STARTED_AT = new Date();

/** Bearer API key: missing → 401 missing_api_key, wrong → 403 invalid_api_key, as Resend answers. */
function authenticate(state: SimulatorState, authorization: string | undefined): SimResponse | undefined {
  if (!authorization?.startsWith('Bearer ') || authorization.length <= 7) {
    return resendError(401, 'missing_api_key', 'Missing API key in the authorization header. Include the following header in the request: Authorization: Bearer YOUR_API_KEY');
  }
  if (authorization.slice(7) !== state.credentials.resend.apiKey) return resendError(403, 'invalid_api_key', 'API key is invalid');
  return undefined;
}

function listDomains(state: SimulatorState): SimResponse {
  const data = state.settings.emailDomains.map((name, i) => ({
    id: `4dd369bc-aa82-4ff3-97de-514ae3000${String(i).padStart(3, '0')}`,
    name,
    status: 'verified',
    created_at: resendTimestamp(STARTED_AT),
    region: 'us-east-1',
    capabilities: { sending: 'enabled', receiving: 'enabled' },
  }));
  return { status: 200, json: { object: 'list', has_more: false, data } };
}

function methodNotAllowed(method: string): SimResponse {
  return resendError(405, 'method_not_allowed', `Method ${method} is not allowed on this endpoint.`);
}

/** The subset of Resend's API that Switchboard's resend driver uses. */
export function resendApi(state: SimulatorState): ProviderApi {
  return {
    provider: 'resend',
    faultResponse: resendFault,
    handle(req: SimRequest): SimResponse {
      const refused = authenticate(state, req.headers.authorization);
      if (refused) return refused;
      const segments = req.path.split('/').filter(Boolean).map(safeDecode);
      const [collection, first, second] = segments;
      if (collection === 'emails') {
        if (segments.length === 1) return req.method === 'POST' ? sendEmail(state, req) : methodNotAllowed(req.method);
        if (first === 'receiving') {
          if (req.method !== 'GET') return methodNotAllowed(req.method);
          if (segments.length === 2) return listReceivedEmails(state);
          if (segments.length === 3 && second) return getReceivedEmail(state, second);
        } else if (segments.length === 2 && first) {
          return req.method === 'GET' ? getSentEmail(state, first) : methodNotAllowed(req.method);
        }
      }
      if (collection === 'domains' && segments.length === 1) return req.method === 'GET' ? listDomains(state) : methodNotAllowed(req.method);
      return resendError(404, 'not_found', 'The requested endpoint does not exist.');
    },
  };
}
