import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { unsubscribeSubject } from '@switchboard/runtime';
import { Type } from '@sinclair/typebox';
import type { HttpResult, RouteContext, RouteDefinition } from '../http/types.js';
import { errorResponses } from '../schemas/common.js';
import type { RouteDeps } from './deps.js';

/** An agent id as routes take it: a token naming anything else is no token of ours. */
const AGENT_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** The pages carry no script, load nothing and post only to themselves. */
const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
};

const Html = Type.String({ description: 'A short HTML page.' });

/**
 * One-click unsubscribe (RFC 8058) for the emails of an agent with `listUnsubscribe`: the link in
 * their `List-Unsubscribe` header. A POST (the mail client's, or the page's button) puts the address
 * on the agent's do-not-contact list; a GET only shows the button, since link scanners follow GETs.
 * No auth and no cookies: the token proves itself, checked by the agent's node under the store key.
 */
export function unsubscribeRoutes(deps: RouteDeps): RouteDefinition[] {
  /** The agent a token names, or NOT_FOUND when it cannot be a token (a forged one is refused by the agent). */
  const agentOf = (token: string): string => {
    const subject = unsubscribeSubject(token);
    if (!subject || !AGENT_ID.test(subject.agentId)) throw new SwitchboardError(ErrorCodes.NOT_FOUND, 'No such unsubscribe link.');
    return subject.agentId;
  };
  const call = (token: string, apply: boolean) => deps.ports.agents.call('unsubscribe', agentOf(token), { token, apply });
  return [
    {
      method: 'GET',
      path: '/unsubscribe/:token',
      operationId: 'unsubscribePage',
      summary: "The page behind an email's List-Unsubscribe link: a button that unsubscribes (POST). Opening it changes nothing.",
      tag: 'Compliance',
      auth: 'public',
      responses: { 200: { description: 'The page with the button.', contentType: 'text/html', schema: Html }, ...errorResponses(404, 429) },
      async handler({ params }: RouteContext): Promise<HttpResult> {
        await call(params.token!, false);
        return { status: 200, headers: PAGE_HEADERS, body: page('Unsubscribe', '<p>Stop getting emails from this sender?</p><form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>') };
      },
    },
    {
      method: 'POST',
      path: '/unsubscribe/:token',
      operationId: 'unsubscribe',
      summary: "One-click unsubscribe (RFC 8058): the address the link names goes on the agent's do-not-contact list (source email-unsubscribe); the agent's next email to it is refused with RECIPIENT_OPTED_OUT.",
      description: 'Posted by the mail client with the body `List-Unsubscribe=One-Click`, or by the page behind the link. No auth, no cookies. Repeating it is harmless. A token this server did not make, or made for an agent since deleted, is 404 and nothing is stored.',
      tag: 'Compliance',
      auth: 'public',
      bodyLimit: 'webhook',
      rawBody: ['application/x-www-form-urlencoded', 'multipart/form-data'],
      responses: { 200: { description: 'Unsubscribed.', contentType: 'text/html', schema: Html }, ...errorResponses(404, 413, 415, 429) },
      async handler({ params }: RouteContext): Promise<HttpResult> {
        await call(params.token!, true);
        return { status: 200, headers: PAGE_HEADERS, body: page('Unsubscribed', '<p>You are unsubscribed: this sender will not email you again.</p>') };
      },
    },
  ];
}

function page(title: string, content: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${title}</title></head><body style="font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem"><h1>${title}</h1>${content}</body></html>`;
}
