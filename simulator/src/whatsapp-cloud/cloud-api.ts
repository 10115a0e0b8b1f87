import type { SimRequest } from '../http/sim-request.js';
import type { SimResponse } from '../http/sim-response.js';
import type { ProviderApi, SimulatorState } from '../simulator-state.js';
import { DEMO_CONTENT } from '../twilio/content.js';
import { cloudFault, graphError, invalidParameter, invalidToken } from './cloud-errors.js';
import { templateId, type CloudPhoneNumber } from './cloud-ledger.js';
import { sendCloudMessage } from './cloud-messages.js';
import { verifyCallback } from './cloud-webhooks.js';

/** GET /{phone-number-id}: the number as the health probe reads it. */
function phoneNumber(number: CloudPhoneNumber): SimResponse {
  return {
    status: 200,
    json: { id: number.id, display_phone_number: number.number.replace(/^\+1(\d{3})(\d{3})(\d{4})$/, '+1 $1-$2-$3'), verified_name: 'Switchboard Simulator', quality_rating: 'GREEN', code_verification_status: 'VERIFIED', platform_type: 'CLOUD_API', throughput: { level: 'STANDARD' } },
  };
}

/** GET /{waba-id}/message_templates: the demo templates, in Meta's shape, one page. */
function messageTemplates(): SimResponse {
  const data = DEMO_CONTENT.map((c) => ({
    id: templateId(c.friendlyName),
    name: c.friendlyName,
    language: c.language,
    status: c.status.toUpperCase(),
    category: c.category,
    components: [{ type: 'BODY', text: c.body, example: { body_text: [Object.keys(c.variables).sort((a, b) => Number(a) - Number(b)).map((k) => c.variables[k]!)] } }],
  }));
  return { status: 200, json: { data, paging: { cursors: { before: 'QVFIUk', after: 'QVFIUl' } } } };
}

/**
 * POST /{phone-number-id} with `webhook_configuration: {override_callback_uri, verify_token}`: Meta
 * checks the URL with the GET handshake, then posts the number's webhooks there.
 */
async function overrideCallback(number: CloudPhoneNumber, req: SimRequest): Promise<SimResponse> {
  const config = (req.body as { webhook_configuration?: { override_callback_uri?: unknown; verify_token?: unknown } } | undefined)?.webhook_configuration;
  const url = config?.override_callback_uri;
  const token = config?.verify_token;
  if (typeof url !== 'string' || !/^https?:\/\//.test(url) || typeof token !== 'string') {
    return invalidParameter('(#100) webhook_configuration needs override_callback_uri and verify_token.');
  }
  if (!(await verifyCallback(url, token))) return graphError(400, 2200, 'Callback verification failed with the following errors: the verify token or the challenge did not match', 'OAuthException');
  number.callbackUrl = url;
  return { status: 200, json: { success: true } };
}

/** The subset of the Graph API that the WhatsApp Cloud API driver uses, behind `/{version}`, authenticated by a Bearer token. */
export function cloudApi(state: SimulatorState): ProviderApi {
  return {
    provider: 'whatsapp-cloud',
    faultResponse: cloudFault,
    async handle(req: SimRequest): Promise<SimResponse> {
      if (req.headers.authorization !== `Bearer ${state.credentials.whatsappCloud.accessToken}`) return invalidToken();
      const match = /^\/v\d+\.\d+\/([0-9]+)(?:\/([a-z_]+))?\/?$/.exec(req.path);
      if (!match) return invalidParameter(`Unknown path components: ${req.path}`);
      const [, id, edge] = match;
      const number = state.whatsappCloud.numbers.get(id!);
      if (number && req.method === 'POST' && edge === 'messages') return sendCloudMessage(state, number, req);
      if (number && req.method === 'GET' && edge === undefined) return phoneNumber(number);
      if (number && req.method === 'POST' && edge === undefined) return overrideCallback(number, req);
      if (id === state.credentials.whatsappCloud.wabaId && req.method === 'GET' && edge === 'message_templates') return messageTemplates();
      return invalidParameter(`(#100) Unsupported ${req.method} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`);
    },
  };
}
