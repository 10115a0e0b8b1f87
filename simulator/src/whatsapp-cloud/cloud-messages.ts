import type { SimRequest } from '../http/sim-request.js';
import type { SimResponse } from '../http/sim-response.js';
import type { SimulatorState } from '../simulator-state.js';
import { DEMO_CONTENT, renderContent } from '../twilio/content.js';
import { RE_ENGAGEMENT, invalidParameter } from './cloud-errors.js';
import { wamid, type CloudMessage, type CloudPhoneNumber } from './cloud-ledger.js';
import { scheduleCloudStatuses } from './cloud-webhooks.js';

const WA_ID = /^\+?[1-9][0-9]{6,14}$/;
/** The Cloud API's limit on a text body. */
const MAX_TEXT = 4096;

interface Parameter {
  type?: string;
  text?: string;
  parameter_name?: string;
}

/** The template's values from its `components` body parameters: positional as `1`, `2`…, named by their name. */
function templateValues(components: unknown): Record<string, string> | undefined {
  if (components === undefined) return {};
  if (!Array.isArray(components)) return undefined;
  const values: Record<string, string> = {};
  for (const component of components as { type?: string; parameters?: Parameter[] }[]) {
    if (component?.type?.toLowerCase() !== 'body') continue;
    let position = 0;
    for (const p of component.parameters ?? []) {
      if (p?.type !== 'text' || typeof p.text !== 'string') return undefined;
      values[p.parameter_name ?? String(++position)] = p.text;
    }
  }
  return values;
}

/**
 * POST /{phone-number-id}/messages: checks the request as the Cloud API does, accepts it, and
 * schedules its statuses. A free-form message outside the user's 24-hour window is accepted and then
 * fails with 131047, as Meta does.
 */
export function sendCloudMessage(state: SimulatorState, number: CloudPhoneNumber, req: SimRequest): SimResponse {
  const body = typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : undefined;
  if (!body || req.bodyError !== undefined) return invalidParameter('(#100) Invalid parameter', 'The request body is not valid JSON.');
  if (body['messaging_product'] !== 'whatsapp') return invalidParameter('(#100) The parameter messaging_product is required.');
  const to = body['to'];
  if (typeof to !== 'string' || !WA_ID.test(to)) return invalidParameter('(#100) Invalid parameter', 'to must be a phone number (WhatsApp id).');
  const type = body['type'] ?? 'text';
  const now = state.clock.now();
  let text: string;
  let category = 'service';
  let template: { name: string; language: string; variables: Record<string, string> } | undefined;
  if (type === 'text') {
    const content = (body['text'] as { body?: unknown } | undefined)?.body;
    if (typeof content !== 'string' || content === '') return invalidParameter('(#100) The parameter text[\'body\'] is required.');
    if (content.length > MAX_TEXT) return invalidParameter('(#100) Param text[\'body\'] must be at most 4096 characters long.');
    text = content;
  } else if (type === 'template') {
    const t = body['template'] as { name?: unknown; language?: { code?: unknown }; components?: unknown } | undefined;
    if (typeof t?.name !== 'string' || typeof t.language?.code !== 'string') return invalidParameter('(#100) The parameters template[\'name\'] and template[\'language\'][\'code\'] are required.');
    const known = DEMO_CONTENT.find((c) => c.friendlyName === t.name && c.language === t.language!.code && c.status === 'approved');
    if (!known) return { ...invalidParameter(`(#132001) Template name does not exist in the translation`), json: templateMissing(t.name, t.language.code) };
    const values = templateValues(t.components);
    if (!values) return invalidParameter('(#131008) Required parameter is missing', 'Each body parameter is {type: "text", text}.');
    text = renderContent(known, values);
    category = known.category.toLowerCase();
    template = { name: known.friendlyName, language: known.language, variables: values };
  } else if (type === 'image') {
    const image = body['image'] as { link?: unknown; caption?: unknown } | undefined;
    if (typeof image?.link !== 'string') return invalidParameter('(#100) The parameter image[\'link\'] is required.');
    text = typeof image.caption === 'string' ? image.caption : '';
  } else {
    return invalidParameter(`(#100) Param type must be one of text, template, image in this simulator; got ${String(type)}.`);
  }
  const recipient = to.replace(/^\+/, '');
  const message: CloudMessage = { id: wamid(), phoneNumberId: number.id, from: number.number, to: recipient, status: 'accepted', category, at: now };
  if (!template && !state.whatsappCloud.windows.isOpen(`+${recipient}`, number.number, now)) message.error = { ...RE_ENGAGEMENT, error_data: { ...RE_ENGAGEMENT.error_data } };
  state.whatsappCloud.messages.set(message.id, message);
  state.messages.push({
    provider: 'whatsapp-cloud',
    channel: 'whatsapp',
    id: message.id,
    from: number.number,
    to: `+${recipient}`,
    body: text,
    mediaUrls: type === 'image' ? [String((body['image'] as { link: string }).link)] : [],
    ...(number.callbackUrl ? { statusCallback: number.callbackUrl } : {}),
    ...(template ? { template } : {}),
    at: now,
  });
  scheduleCloudStatuses(state, number, message);
  return {
    status: 200,
    json: { messaging_product: 'whatsapp', contacts: [{ input: to, wa_id: recipient }], messages: [{ id: message.id, ...(template ? { message_status: 'accepted' } : {}) }] },
  };
}

function templateMissing(name: string, language: string): unknown {
  return {
    error: {
      message: '(#132001) Template name does not exist in the translation',
      type: 'OAuthException',
      code: 132001,
      error_data: { messaging_product: 'whatsapp', details: `template name (${name}) does not exist in ${language}` },
      fbtrace_id: 'A' + Math.random().toString(36).slice(2, 14),
    },
  };
}
