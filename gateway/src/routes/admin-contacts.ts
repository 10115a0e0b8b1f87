import { contactAddress } from '@switchboard/runtime';
import { ErrorCodes, type Channel } from '@switchboard/sdk';
import { parse } from 'csv-parse/sync';
import { fail } from '../http/errors.js';
import { json, type RouteContext, type RouteDefinition } from '../http/types.js';
import { errorResponses } from '../schemas/common.js';
import {
  ContactBlockBody,
  ContactBlockChanged,
  ContactBlockList,
  ContactBlockQuery,
  ContactHistory,
  ContactHistoryQuery,
  ContactImportResult,
  ContactNarrowBody,
  ContactUnblockBody,
  ErasureBody,
  ErasureReceipt,
} from '../schemas/compliance.js';
import { ContactSettingsBody, ContactSettingsResponse, RefusalList, RefusalQuery } from '../schemas/consents.js';
import type { RouteDeps } from './deps.js';

/** Rows one import may hold: a larger list goes in several posts. */
const IMPORT_ROWS = 10_000;

/** The operator's do-not-contact list (list, add, remove with a reason, import a CSV, each address's history) and erasure of a person. */
export function adminContactRoutes(deps: RouteDeps): RouteDefinition[] {
  const list = deps.ports.admin.contactList;
  const common = { tag: 'Admin', auth: 'orchestrator' as const };
  return [
    {
      ...common,
      method: 'GET',
      path: '/admin/api/do-not-contact',
      operationId: 'adminDoNotContactList',
      summary: 'The do-not-contact list in address order, in one scope or all, a page at a time.',
      query: ContactBlockQuery,
      responses: { 200: { description: 'A page of entries.', schema: ContactBlockList }, ...errorResponses(400, 401, 403, 429) },
      async handler({ query }: RouteContext<unknown, ContactBlockQuery>) {
        const limit = query.limit ?? 100;
        const entries = await list.list({ scope: query.scope, after: query.after, limit });
        return json(200, { entries, nextCursor: entries.length === limit ? entries.at(-1)!.address : null }, { 'cache-control': 'no-store' });
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/admin/api/do-not-contact',
      operationId: 'adminDoNotContactAdd',
      summary: 'Puts an address on the do-not-contact list: no agent in the scope may message or call it, on any channel.',
      body: ContactBlockBody,
      responses: { 200: { description: 'Listed.', schema: ContactBlockChanged }, ...errorResponses(400, 401, 403, 429) },
      async handler({ body }: RouteContext<ContactBlockBody>) {
        const address = addressOf(body.address);
        const scope = body.scope ?? '*';
        const changed = await list.add({ address, scope, source: 'admin', reason: body.reason ?? null, actor: 'operator' });
        return json(200, { address, scope, changed });
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/admin/api/do-not-contact/remove',
      operationId: 'adminDoNotContactRemove',
      summary: 'Takes an address off the list, with the reason the log keeps (the person opted in again, an entry made by mistake).',
      body: ContactUnblockBody,
      responses: { 200: { description: 'Removed, or it was not listed (changed false).', schema: ContactBlockChanged }, ...errorResponses(400, 401, 403, 429) },
      async handler({ body }: RouteContext<ContactUnblockBody>) {
        const address = addressOf(body.address);
        const scope = body.scope ?? '*';
        const changed = await list.remove({ address, scope, source: 'admin', reason: body.reason, actor: 'operator' });
        return json(200, { address, scope, changed });
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/admin/api/do-not-contact/narrow',
      operationId: 'adminDoNotContactNarrow',
      summary:
        "Narrows an entry to some channels, with the reason the log keeps: a revocation covers calls and texts alike until the operator narrows it (the person asked only not to be texted). A STOP's texts stay refused by the carrier-level opt-out until the person texts START.",
      body: ContactNarrowBody,
      responses: { 200: { description: 'Narrowed, or not listed in that scope (changed false).', schema: ContactBlockChanged }, ...errorResponses(400, 401, 403, 415, 429) },
      async handler({ body }: RouteContext<ContactNarrowBody>) {
        const address = addressOf(body.address);
        const scope = body.scope ?? '*';
        const changed = await list.narrow({ address, scope, channels: body.channels as Channel[], reason: body.reason, actor: 'operator' });
        return json(200, { address, scope, changed });
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/admin/api/do-not-contact/import',
      operationId: 'adminDoNotContactImport',
      summary: `Imports a CSV (text/csv) of addresses for every agent: one per row, an optional second column with the reason, an optional header row \`address,reason\`; at most ${IMPORT_ROWS} rows.`,
      rawBody: ['text/csv'],
      responses: { 200: { description: 'What was imported, and each row that was not, with why.', schema: ContactImportResult }, ...errorResponses(400, 401, 403, 413, 415, 429) },
      async handler({ request }: RouteContext) {
        const rows = parseCsv(request.rawBody);
        let added = 0;
        let alreadyListed = 0;
        const rejected: { line: number; value: string; reason: string }[] = [];
        for (const [index, [value = '', reason]] of rows.entries()) {
          if (index === 0 && value.trim().toLowerCase() === 'address') continue;
          const address = contactAddress(value);
          if (!address) {
            rejected.push({ line: index + 1, value: value.slice(0, 254), reason: 'not an E.164 number, an email address or a LINE user id' });
            continue;
          }
          const changed = await list.add({ address, scope: '*', source: 'import', reason: reason?.trim() || null, actor: 'import' });
          if (changed) added += 1;
          else alreadyListed += 1;
        }
        return json(200, { added, alreadyListed, rejected });
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/admin/api/do-not-contact/history',
      operationId: 'adminDoNotContactHistory',
      summary: 'Every addition and removal for an address, oldest first, with who and why.',
      query: ContactHistoryQuery,
      responses: { 200: { description: 'The history.', schema: ContactHistory }, ...errorResponses(400, 401, 403, 429) },
      async handler({ query }: RouteContext<unknown, ContactHistoryQuery>) {
        const address = addressOf(query.address);
        const changes = (await list.history(address)).map(({ action, scope, source, reason, actor, at }) => ({ action, scope, source, reason, actor, at }));
        return json(200, { address, changes }, { 'cache-control': 'no-store' });
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/admin/api/erasure',
      operationId: 'adminErasure',
      summary:
        'Erases a person everywhere (an erasure request under GDPR art. 17 or the CCPA): messages, calls with transcripts and recordings, dead letters, inbox entries, conversations, callback events, consents. Usage records keep counts only; a do-not-contact entry is kept under a digest of the address.',
      body: ErasureBody,
      responses: { 200: { description: 'The receipt.', schema: ErasureReceipt }, ...errorResponses(400, 401, 403, 429) },
      async handler({ body }: RouteContext<ErasureBody>) {
        return json(200, await deps.ports.admin.erase(body.address), { 'cache-control': 'no-store' });
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/admin/api/refusals',
      operationId: 'adminRefusals',
      summary: 'Messages and calls the contact policy refused (RECIPIENT_OPTED_OUT, EMAIL_SUPPRESSED, OUTSIDE_CALLING_HOURS, CONSENT_REQUIRED), newest first, for one agent or code or all; kept 90 days.',
      query: RefusalQuery,
      responses: { 200: { description: 'A page of refusals.', schema: RefusalList }, ...errorResponses(400, 401, 403, 429) },
      async handler({ query }: RouteContext<unknown, RefusalQuery>) {
        const limit = query.limit ?? 100;
        const found = await deps.ports.admin.refusals.list({ agentId: query.agentId, code: query.code, before: query.cursor === undefined ? undefined : refusalCursor(query.cursor), limit: limit + 1 });
        const refusals = found.slice(0, limit);
        const last = refusals.at(-1);
        const nextCursor = found.length > limit && last ? Buffer.from(JSON.stringify([last.at, last.id])).toString('base64url') : null;
        return json(200, { refusals, nextCursor }, { 'cache-control': 'no-store' });
      },
    },
    {
      ...common,
      method: 'POST',
      path: '/admin/api/agents/:agentId/contact-settings',
      operationId: 'adminSetContactSettings',
      summary:
        "Set which consents an agent must find on record before it contacts a person (a call needs automated-call, a message marked marketing needs marketing, any other message transactional; otherwise CONSENT_REQUIRED), whether its emails carry one-click unsubscribe headers (RFC 8058), and a waiver of calling hours with its recorded reason. A field left out is unchanged.",
      body: ContactSettingsBody,
      idempotent: true,
      responses: { 200: { description: 'Set.', schema: ContactSettingsResponse }, ...errorResponses(400, 401, 403, 404, 415, 429) },
      async handler({ params, body }: RouteContext<ContactSettingsBody>) {
        const { requireConsent, listUnsubscribe, callingHoursOverride } = body;
        return json(
          200,
          await deps.ports.agents.call('setContactSettings', params.agentId!, {
            ...(requireConsent ? { requireConsent } : {}),
            ...(listUnsubscribe === undefined ? {} : { listUnsubscribe }),
            ...(callingHoursOverride === undefined ? {} : { callingHoursOverride }),
          }),
        );
      },
    },
  ];
}

/** A refusal page's cursor: the time and id of the last refusal of the page before. */
function refusalCursor(cursor: string): { at: string; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof at === 'string' && typeof id === 'string') return { at, id };
  } catch {
    // answered below
  }
  fail(ErrorCodes.VALIDATION_FAILED, 'cursor is not one this API gave out; pass the nextCursor of the page before, or none.');
}

function addressOf(raw: string): string {
  const address = contactAddress(raw);
  if (!address) fail(ErrorCodes.VALIDATION_FAILED, `${JSON.stringify(raw.slice(0, 64))} is not an E.164 number, an email address or a LINE user id.`);
  return address;
}

function parseCsv(body: Buffer): string[][] {
  let rows: string[][];
  try {
    rows = parse(body, { relax_column_count: true, skip_empty_lines: true, trim: true, bom: true, to: IMPORT_ROWS + 2 });
  } catch (err) {
    fail(ErrorCodes.MALFORMED_PAYLOAD, `The CSV could not be read: ${(err as Error).message}. Send one address per row, optionally with a reason in a second column.`);
  }
  if (rows.length > IMPORT_ROWS + 1) fail(ErrorCodes.VALIDATION_FAILED, `At most ${IMPORT_ROWS} rows per import; split the file.`);
  return rows;
}
