import { providerError, type MessageTemplate, type MessageTemplates, type TemplateRef } from '@switchboard/sdk';
import type twilio from 'twilio';

type ContentAndApprovals = Awaited<ReturnType<twilio.Twilio['content']['v1']['contentAndApprovals']['list']>>[number];

/** WhatsApp templates from Twilio's Content API, with their WhatsApp approval. */
export function contentTemplates(client: twilio.Twilio): MessageTemplates {
  return {
    async list() {
      let listed: ContentAndApprovals[];
      try {
        listed = await client.content.v1.contentAndApprovals.list({ pageSize: 500 });
      } catch (err) {
        throw providerError('twilio', err, statusOf(err));
      }
      return listed.map(templateOf);
    },
  };
}

/** A ContentAndApprovals resource as the SDK's template; its WhatsApp approval gives the status and category. */
function templateOf(content: ContentAndApprovals): MessageTemplate {
  const approval = (content.approvalRequests ?? {}) as { name?: unknown; status?: unknown; category?: unknown };
  const types = (content.types ?? {}) as Record<string, { body?: unknown } | undefined>;
  const body = Object.values(types).find((t) => typeof t?.body === 'string')?.body as string | undefined;
  const variables = Object.fromEntries(Object.entries(content.variables ?? {}).map(([k, v]) => [k, String(v)]));
  return {
    id: content.sid,
    name: typeof approval.name === 'string' && approval.name !== '' ? approval.name : content.friendlyName,
    language: content.language,
    status: typeof approval.status === 'string' && approval.status !== '' ? approval.status.toLowerCase() : 'unsubmitted',
    category: typeof approval.category === 'string' && approval.category !== '' ? approval.category : null,
    body: body ?? null,
    variables,
  };
}

/** The Content SID a send names, or the one of the approved template with its name (and language). */
export async function templateSid(client: twilio.Twilio, template: TemplateRef): Promise<string> {
  if (template.id) return template.id;
  const name = template.name ?? '';
  const found = (await contentTemplates(client).list('whatsapp')).find(
    (t) => t.status === 'approved' && t.name === name && (template.language === undefined || t.language.toLowerCase() === template.language.toLowerCase()),
  );
  if (found) return found.id;
  const language = template.language ? ` in ${template.language}` : '';
  throw providerError('twilio', new Error(`no approved WhatsApp template is named ${name}${language}`), 404);
}

function statusOf(err: unknown): number | undefined {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}
