import type { TelnyxLedger, TelnyxMessage } from './telnyx-ledger.js';

/** A message as Telnyx's v2 API and its webhooks show it (`OutboundMessagePayload`). */
export function messageJson(ledger: TelnyxLedger, m: TelnyxMessage): Record<string, unknown> {
  return {
    record_type: 'message',
    direction: 'outbound',
    id: m.id,
    type: m.type,
    messaging_profile_id: m.messagingProfileId,
    organization_id: ledger.organizationId,
    from: { phone_number: m.from, carrier: 'Telnyx', line_type: 'Wireless' },
    to: [{ phone_number: m.to, status: m.status, carrier: 'T-MOBILE USA, INC.', line_type: 'Wireless' }],
    cc: [],
    text: m.text,
    subject: m.subject,
    media: m.mediaUrls.map((url) => ({ url, content_type: null, sha256: null, size: null })),
    webhook_url: m.webhookUrl,
    webhook_failover_url: m.webhookFailoverUrl,
    encoding: m.encoding,
    parts: m.parts,
    tags: [],
    cost: m.cost === null ? null : { amount: m.cost, currency: 'USD' },
    cost_breakdown: null,
    tcr_campaign_id: null,
    tcr_campaign_billable: false,
    tcr_campaign_registered: null,
    received_at: m.receivedAt.toISOString(),
    sent_at: m.sentAt?.toISOString() ?? null,
    completed_at: m.completedAt?.toISOString() ?? null,
    valid_until: m.completedAt ? null : new Date(m.receivedAt.getTime() + 4 * 3_600_000).toISOString(),
    errors: m.errors,
  };
}
