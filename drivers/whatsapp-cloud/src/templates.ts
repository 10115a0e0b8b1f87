import { ErrorCodes, SwitchboardError, type MessageTemplate, type MessageTemplates, type TemplateRef } from '@switchboard/sdk';
import type { GraphClient } from './graph-client.js';

/** One template as GET /{waba-id}/message_templates lists it (the fields the driver asks for). */
interface GraphTemplate {
  readonly id?: string;
  readonly name?: string;
  readonly language?: string;
  readonly status?: string;
  readonly category?: string;
  readonly components?: readonly {
    readonly type?: string;
    readonly text?: string;
    readonly example?: { readonly body_text?: readonly (readonly string[])[]; readonly body_text_named_params?: readonly { readonly param_name?: string; readonly example?: string }[] };
  }[];
}

interface TemplatePage {
  readonly data?: readonly GraphTemplate[];
  readonly paging?: { readonly cursors?: { readonly after?: string }; readonly next?: string };
}

/** Pages are followed up to this many templates: far beyond the 250 a WhatsApp Business Account may hold. */
const MAX_TEMPLATES = 2_000;

/** Every template of the WhatsApp Business Account, whatever its status (GET /{waba-id}/message_templates, paged). */
export async function listTemplates(client: GraphClient): Promise<MessageTemplate[]> {
  const wabaId = client.settings.wabaId;
  if (!wabaId) throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'Listing WhatsApp templates needs the driver setting wabaId (DRIVER_WHATSAPP_CLOUD_WABA_ID).');
  const templates: MessageTemplate[] = [];
  let after: string | undefined;
  do {
    const page = await client.request<TemplatePage>('GET', `/${wabaId}/message_templates`, {
      query: { fields: 'id,name,language,status,category,components', limit: '100', ...(after ? { after } : {}) },
    });
    for (const t of page.data ?? []) {
      const template = templateOf(t);
      if (template) templates.push(template);
    }
    after = page.paging?.next ? page.paging.cursors?.after : undefined;
  } while (after && templates.length < MAX_TEMPLATES);
  return templates;
}

/** The templates capability: the channel is always WhatsApp. */
export function messageTemplates(client: GraphClient): MessageTemplates {
  return { list: () => listTemplates(client) };
}

function templateOf(t: GraphTemplate): MessageTemplate | undefined {
  if (!t.id || !t.name || !t.language) return undefined;
  const body = t.components?.find((c) => c.type?.toUpperCase() === 'BODY');
  const variables: Record<string, string> = {};
  body?.example?.body_text?.[0]?.forEach((sample, i) => (variables[String(i + 1)] = String(sample)));
  for (const named of body?.example?.body_text_named_params ?? []) {
    if (named.param_name) variables[named.param_name] = String(named.example ?? '');
  }
  return {
    id: t.id,
    name: t.name,
    language: t.language,
    status: (t.status ?? 'unknown').toLowerCase(),
    category: t.category ?? null,
    body: typeof body?.text === 'string' ? body.text : null,
    variables,
  };
}

/**
 * The name and language a template send needs: as given, else looked up in the account's templates
 * (by id, or by name when no language is given: the approved one).
 */
export async function resolveTemplate(client: GraphClient, ref: TemplateRef): Promise<{ name: string; language: string }> {
  if (ref.name && ref.language) return { name: ref.name, language: ref.language };
  const templates = await listTemplates(client);
  const approved = templates.filter((t) => t.status === 'approved');
  const found = ref.name ? approved.find((t) => t.name === ref.name) : approved.find((t) => t.id === ref.id);
  if (!found) {
    throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `No approved WhatsApp template ${ref.name ? `named ${ref.name}` : `with id ${ref.id}`} in the WhatsApp Business Account.`);
  }
  return { name: found.name, language: found.language };
}

/**
 * The template's body parameters, in the Cloud API's `components` form: numeric names (`1`, `2`…) as
 * positional parameters in their order, other names as named parameters (`parameter_name`).
 */
export function templateComponents(variables: Readonly<Record<string, string>> | undefined): unknown[] {
  const entries = Object.entries(variables ?? {});
  if (entries.length === 0) return [];
  const positional = entries.filter(([k]) => /^[0-9]+$/.test(k)).sort(([a], [b]) => Number(a) - Number(b));
  const named = entries.filter(([k]) => !/^[0-9]+$/.test(k));
  const parameters = [
    ...positional.map(([, text]) => ({ type: 'text', text })),
    ...named.map(([name, text]) => ({ type: 'text', parameter_name: name, text })),
  ];
  return [{ type: 'body', parameters }];
}
