import { json, type RouteContext, type RouteDefinition } from '../http/types.js';
import { errorResponses } from '../schemas/common.js';
import { WhatsAppTemplatesQuery, WhatsAppTemplatesResponse } from '../schemas/whatsapp.js';
import type { RouteDeps } from './deps.js';

/** WhatsApp's approved templates: what an agent may send outside the 24-hour customer service window. */
export function whatsappRoutes(deps: RouteDeps): RouteDefinition[] {
  const { ports } = deps;
  return [
    {
      tag: 'Messaging',
      auth: 'token',
      method: 'GET',
      path: '/api/v1/whatsapp/templates',
      operationId: 'listWhatsAppTemplates',
      summary: "The WhatsApp templates the provider approved, asked of its API: send one with `template` on send-message, also outside the 24-hour window.",
      query: WhatsAppTemplatesQuery,
      scope: 'read',
      responses: { 200: { description: 'Approved templates.', schema: WhatsAppTemplatesResponse }, ...errorResponses(400, 401, 403, 404, 429, 502, 503) },
      async handler(_context: RouteContext) {
        const { provider, templates } = await ports.templates.approved('whatsapp');
        const listed = templates.map((t) => ({ contentSid: t.id, name: t.name, language: t.language, category: t.category, body: t.body, variables: { ...t.variables } }));
        return json(200, { provider, templates: listed, count: listed.length }, { 'cache-control': 'no-store' });
      },
    },
  ];
}
