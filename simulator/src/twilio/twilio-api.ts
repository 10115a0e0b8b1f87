import type { FormFields, SimRequest } from '../http/sim-request.js';
import type { SimResponse } from '../http/sim-response.js';
import type { ProviderApi, SimulatorState } from '../simulator-state.js';
import { fetchAccount, listIncomingPhoneNumbers } from './account-resources.js';
import { callJson, createCall, listCalls, updateCall } from './calls.js';
import { listContentAndApprovals } from './content.js';
import { createMessage, fetchMessage, listMessages } from './messages.js';
import { fetchRecording, startCallRecording } from './recordings.js';
import { twilioAuthenticationError, twilioFault, twilioMethodNotAllowed, twilioNotFound } from './twilio-errors.js';
import { twilioHeaders } from './twilio-format.js';

/** The Content API (content.twilio.com): templates and their WhatsApp approvals. */
const CONTENT_PATH = /^\/v1\/ContentAndApprovals$/;
const ACCOUNT_PATH = /^\/2010-04-01\/Accounts\/([^/]+)\.json$/;
const RESOURCE_PATH = /^\/2010-04-01\/Accounts\/([^/]+)\/(Messages|Calls|IncomingPhoneNumbers)(?:\/([^/]+))?\.json$/;
const CALL_RECORDINGS_PATH = /^\/2010-04-01\/Accounts\/([^/]+)\/Calls\/([^/]+)\/Recordings\.json$/;
/** A recording's media (no extension or `.wav`: WAV; `.mp3`) or its resource (`.json`). */
const RECORDING_PATH = /^\/2010-04-01\/Accounts\/([^/]+)\/Recordings\/(RE[0-9a-f]{32})(\.wav|\.mp3|\.json)?$/;

/** HTTP Basic `accountSid:authToken`, as the twilio SDK sends it. */
function authenticated(state: SimulatorState, authorization: string | undefined): boolean {
  if (!authorization?.startsWith('Basic ')) return false;
  const decoded = Buffer.from(authorization.slice(6), 'base64').toString('utf8');
  const { accountSid, authToken } = state.credentials.twilio;
  return decoded === `${accountSid}:${authToken}`;
}

function formOf(req: SimRequest): FormFields {
  return typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body) ? (req.body as FormFields) : {};
}

/** The subset of Twilio's 2010-04-01 REST API and Content API that Switchboard's twilio driver uses. */
export function twilioApi(state: SimulatorState): ProviderApi {
  return {
    provider: 'twilio',
    faultResponse: twilioFault,
    handle(req: SimRequest): SimResponse {
      if (!authenticated(state, req.headers.authorization)) return twilioAuthenticationError();
      const { accountSid } = state.credentials.twilio;

      if (CONTENT_PATH.test(req.path)) return req.method === 'GET' ? listContentAndApprovals(accountSid, req.query) : twilioMethodNotAllowed(req.method);

      const account = ACCOUNT_PATH.exec(req.path);
      if (account) {
        if (account[1] !== accountSid) return twilioNotFound(req.path);
        return req.method === 'GET' ? fetchAccount(state) : twilioMethodNotAllowed(req.method);
      }

      const callRecordings = CALL_RECORDINGS_PATH.exec(req.path);
      if (callRecordings) {
        const call = callRecordings[1] === accountSid ? state.twilio.calls.get(callRecordings[2]!) : undefined;
        if (!call) return twilioNotFound(req.path);
        return req.method === 'POST' ? startCallRecording(state, call, formOf(req)) : twilioMethodNotAllowed(req.method);
      }
      const recording = RECORDING_PATH.exec(req.path);
      if (recording) {
        if (req.method !== 'GET') return twilioMethodNotAllowed(req.method);
        return (recording[1] === accountSid && fetchRecording(state, recording[2]!, recording[3], req.path)) || twilioNotFound(req.path);
      }

      const resource = RESOURCE_PATH.exec(req.path);
      if (!resource || resource[1] !== accountSid) return twilioNotFound(req.path);
      const [, , kind, sid] = resource;
      const { method } = req;

      if (kind === 'Messages') {
        if (sid === undefined) {
          if (method === 'POST') return createMessage(state, accountSid, formOf(req));
          if (method === 'GET') return listMessages(state, accountSid, req.query);
          return twilioMethodNotAllowed(method);
        }
        if (method === 'GET') return fetchMessage(state, accountSid, sid, req.path);
        return twilioMethodNotAllowed(method);
      }

      if (kind === 'Calls') {
        if (sid === undefined) {
          if (method === 'POST') return createCall(state, accountSid, formOf(req));
          if (method === 'GET') return listCalls(state, accountSid, req.query);
          return twilioMethodNotAllowed(method);
        }
        const call = state.twilio.calls.get(sid);
        if (!call) return twilioNotFound(req.path);
        if (method === 'GET') return { status: 200, headers: twilioHeaders(), json: callJson(call, state) };
        if (method === 'POST') return updateCall(state, call, formOf(req));
        return twilioMethodNotAllowed(method);
      }

      if (sid === undefined && method === 'GET') return listIncomingPhoneNumbers(state, req.query);
      return sid === undefined ? twilioMethodNotAllowed(method) : twilioNotFound(req.path);
    },
  };
}
