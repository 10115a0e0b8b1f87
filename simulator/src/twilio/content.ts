import { createHash } from 'node:crypto';
import type { SimResponse } from '../http/sim-response.js';
import { twilioHeaders } from './twilio-format.js';

/** A Content API template of the simulated account, with its WhatsApp approval. */
export interface SimContent {
  sid: string;
  friendlyName: string;
  language: string;
  body: string;
  variables: Record<string, string>;
  category: string;
  status: 'approved' | 'pending' | 'rejected';
}

/** A stable Content SID for a template name, as Twilio's look (HX + 32 hex digits). */
function contentSid(name: string): string {
  return `HX${createHash('md5').update(name).digest('hex')}`;
}

const CREATED = new Date('2026-01-05T09:00:00Z');

/** The templates every simulated account holds: two approved for WhatsApp, one still pending. */
export const DEMO_CONTENT: readonly SimContent[] = [
  {
    sid: contentSid('appointment_reminder'),
    friendlyName: 'appointment_reminder',
    language: 'en',
    body: 'Hello {{1}}, this is a reminder of your appointment on {{2}}. Reply here to confirm or change it.',
    variables: { '1': 'Alex', '2': 'Monday at 10:00' },
    category: 'UTILITY',
    status: 'approved',
  },
  {
    sid: contentSid('order_update'),
    friendlyName: 'order_update',
    language: 'en',
    body: 'Your order {{1}} is on its way and should arrive {{2}}.',
    variables: { '1': '#1042', '2': 'tomorrow' },
    category: 'UTILITY',
    status: 'approved',
  },
  {
    sid: contentSid('spring_offer'),
    friendlyName: 'spring_offer',
    language: 'en',
    body: 'Spring is here, {{1}}: 10% off your next visit this month.',
    variables: { '1': 'Alex' },
    category: 'MARKETING',
    status: 'pending',
  },
];

/** The template's text with its placeholders filled from `variables` (its samples where one is missing). */
export function renderContent(content: SimContent, variables: Record<string, string>): string {
  return content.body.replace(/\{\{\s*([^}\s]+)\s*\}\}/g, (_, name: string) => variables[name] ?? content.variables[name] ?? '');
}

function iso(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** One ContentAndApprovals resource, as Twilio's Content API returns it. */
function contentAndApprovalsJson(content: SimContent, accountSid: string): Record<string, unknown> {
  return {
    sid: content.sid,
    account_sid: accountSid,
    friendly_name: content.friendlyName,
    language: content.language,
    variables: content.variables,
    types: { 'twilio/text': { body: content.body } },
    url: `https://content.twilio.com/v1/Content/${content.sid}`,
    date_created: iso(CREATED),
    date_updated: iso(CREATED),
    approval_requests: {
      name: content.friendlyName,
      category: content.category,
      content_type: 'twilio/text',
      status: content.status,
      rejection_reason: '',
      allow_category_change: true,
    },
  };
}

/** GET /v1/ContentAndApprovals: every template with its WhatsApp approval, in the Content API's page shape. */
export function listContentAndApprovals(accountSid: string, query: URLSearchParams): SimResponse {
  const pageSize = Math.min(500, Math.max(1, Number.parseInt(query.get('PageSize') ?? '50', 10) || 50));
  const page = Math.max(0, Number.parseInt(query.get('Page') ?? '0', 10) || 0);
  const items = DEMO_CONTENT.slice(page * pageSize, (page + 1) * pageSize).map((c) => contentAndApprovalsJson(c, accountSid));
  const url = (p: number) => `https://content.twilio.com/v1/ContentAndApprovals?PageSize=${pageSize}&Page=${p}`;
  return {
    status: 200,
    headers: twilioHeaders(),
    json: {
      contents: items,
      meta: {
        page,
        page_size: pageSize,
        first_page_url: url(0),
        previous_page_url: page > 0 ? url(page - 1) : null,
        url: url(page),
        next_page_url: (page + 1) * pageSize < DEMO_CONTENT.length ? url(page + 1) : null,
        key: 'contents',
      },
    },
  };
}

/** The template a Content SID names. */
export function contentBySid(sid: string): SimContent | undefined {
  return DEMO_CONTENT.find((c) => c.sid === sid);
}
