import { html } from 'htm/preact';
import { api } from './api.js';
import { TranscriptLines } from './calls.js';
import { Freshness, LoadFailure, OlderButton, useOlder, usePolling } from './polling.js';
import { agentPath, count, when } from './words.js';

const base = (agentId) => `/admin/api/agents/${encodeURIComponent(agentId)}/conversations`;

/** An agent's conversations, latest activity first: who, on which channels, how many messages and calls. */
export function ConversationList({ agentId }) {
  const list = usePolling(() => api('GET', `${base(agentId)}?limit=50`), [agentId]);
  const older = useOlder(async (cursor) => {
    const page = await api('GET', `${base(agentId)}?limit=50&cursor=${encodeURIComponent(cursor)}`);
    return { rows: page.conversations, nextCursor: page.nextCursor };
  });
  const back = { href: agentPath(agentId), label: `go back to ${agentId}` };
  if (list.error && !list.data) return html`<${LoadFailure} error=${list.error} what=${`the conversations of ${agentId}`} back=${back} />`;
  if (!list.data) return html`<p class="loading">Loading conversations…</p>`;
  const rows = older.rows(list.data.conversations, (c) => c.conversationId);
  return html`<section aria-labelledby="conversations-title">
    <p><a href=${back.href}>← ${agentId}</a></p>
    <h1 id="conversations-title">Conversations <small>${agentId}</small></h1>
    <p class="hint">One conversation per counterpart across channels (a number on SMS, WhatsApp and voice; an email address; a LINE user), latest activity first.</p>
    <${Freshness} polls=${[list]} />
    <section class="card" aria-labelledby="list-title">
      <h2 id="list-title" class="sr-only">Conversation list</h2>
      ${rows.length === 0
        ? html`<p class="empty">No conversations yet. One starts with the first message or call between ${agentId} and someone: an inbound message, a send, or a call.</p>`
        : html`<table class="stack conversations" role="table">
            <thead role="rowgroup"><tr role="row">${['Counterpart', 'Channels', 'Last activity', 'Messages', 'Calls'].map((h) => html`<th role="columnheader" scope="col">${h}</th>`)}</tr></thead>
            <tbody role="rowgroup">
              ${rows.map(
                (c) => html`<tr role="row" key=${c.conversationId}>
                  <th role="rowheader" scope="row" class="wide address"><a href=${agentPath(agentId, 'conversations', c.conversationId)}>${c.counterparts[0]?.address ?? c.conversationId}</a></th>
                  <td role="cell" class="wide">${c.counterparts.map((p) => html`<span class="chip">${p.channel}: ${p.address}</span> `)}</td>
                  <td role="cell" data-label="Last activity">${when(c.lastActivityAt)}</td>
                  <td role="cell" data-label="Messages">${c.messages}</td>
                  <td role="cell" data-label="Calls">${c.calls}</td>
                </tr>`,
              )}
            </tbody>
          </table>`}
      <${OlderButton} older=${older} firstCursor=${list.data.nextCursor} label="Older conversations" />
    </section>
  </section>`;
}

/** What became of an outbound message, in words and a class that colours it. */
function Delivery({ item }) {
  if (item.direction !== 'outbound') return html`<span class="state">received</span>`;
  const tone = ['delivered', 'read', 'sent'].includes(item.status) ? 'ok' : ['failed', 'undelivered', 'unknown'].includes(item.status) ? 'error' : 'pending';
  return html`<span class=${`state ${tone}`}>Delivery: ${item.status}</span>`;
}

function Transcript({ lines }) {
  if (!lines || lines.length === 0) return html`<p class="hint">No transcript: the call had no words, or its media connection has not closed yet.</p>`;
  // One line (a voice message's text, a greeting nobody answered) is shown as it is: nothing to fold away.
  if (lines.length === 1) return html`<${TranscriptLines} lines=${lines} />`;
  return html`<details class="transcript">
    <summary>Transcript (${count(lines.length, 'line')})</summary>
    <${TranscriptLines} lines=${lines} />
  </details>`;
}

function TimelineItem({ item }) {
  const head = html`<span class="chip">${item.channel}</span> <strong>${item.direction === 'inbound' ? 'In' : 'Out'}</strong> ${item.from} → ${item.to} · <time datetime=${item.createdAt}>${when(item.createdAt)}</time>`;
  if (item.kind === 'call') {
    return html`<li class="item call" data-kind="call">
      <p class="head">${head}</p>
      <p><strong>Call</strong> · ${item.status}${item.durationSeconds !== undefined ? ` · ${item.durationSeconds} s` : ''} · <a href=${`/admin/calls/${encodeURIComponent(item.id)}`}>Call page: latency waterfall</a></p>
      <${Transcript} lines=${item.transcript} />
    </li>`;
  }
  return html`<li class="item message" data-kind="message">
    <p class="head">${head} · <${Delivery} item=${item} /></p>
    ${item.subject && html`<p class="subject"><strong>${item.subject}</strong></p>`}
    <p class="body">${item.body || html`<span class="hint">(no text)</span>`}</p>
  </li>`;
}

/** One conversation: messages and calls across channels, newest first, calls with their transcript. */
export function Conversation({ agentId, conversationId }) {
  const path = `${base(agentId)}/${encodeURIComponent(conversationId)}`;
  const timeline = usePolling(() => api('GET', `${path}?limit=100`), [agentId, conversationId]);
  const older = useOlder(async (cursor) => {
    const page = await api('GET', `${path}?limit=100&cursor=${encodeURIComponent(cursor)}`);
    return { rows: page.items, nextCursor: page.nextCursor };
  });
  const back = { href: agentPath(agentId, 'conversations'), label: `go back to the conversations of ${agentId}` };
  if (timeline.error && !timeline.data) return html`<${LoadFailure} error=${timeline.error} what="this conversation" back=${back} />`;
  if (!timeline.data) return html`<p class="loading">Loading the conversation…</p>`;
  const t = timeline.data;
  const items = older.rows(t.items, (i) => `${i.kind}:${i.id}`);
  return html`<section aria-labelledby="conversation-title">
    <p><a href=${back.href}>← Conversations of ${agentId}</a></p>
    <h1 id="conversation-title">Conversation with ${t.counterparts[0]?.address ?? conversationId} <small>${conversationId}</small></h1>
    <p>${t.counterparts.map((p) => html`<span class="chip">${p.channel}: ${p.address}</span> `)}</p>
    ${t.linkedAddresses.length > 0 && html`<p class="hint">Linked by the agent: ${t.linkedAddresses.join(', ')}.</p>`}
    <${Freshness} polls=${[timeline]} />
    <section class="card" aria-labelledby="timeline-title">
      <h2 id="timeline-title">Timeline, newest first</h2>
      ${items.length === 0
        ? html`<p class="empty">Nothing in this conversation yet.</p>`
        : html`<ol class="timeline">${items.map((i) => html`<${TimelineItem} key=${`${i.kind}:${i.id}`} item=${i} />`)}</ol>`}
      <${OlderButton} older=${older} firstCursor=${t.nextCursor} label="Older entries" />
    </section>
  </section>`;
}
