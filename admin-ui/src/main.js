import { render } from 'preact';
import { html } from 'htm/preact';
import { CallbackLog } from './callbacks.js';
import { CallList, CallPage } from './calls.js';
import { DoNotContact } from './contacts.js';
import { Conversation, ConversationList } from './conversations.js';
import { Dashboard, AgentDetail } from './dashboard.js';
import { Providers } from './providers.js';
import { Setup } from './setup.js';
import { AdminPage } from './shell.js';
import './style.css';

/** The page a path names, with its parameters, and the header link it belongs under. */
const ROUTES = [
  [/^\/admin\/setup$/, 'setup', () => html`<${Setup} />`],
  [/^\/admin\/agents\/([^/]+)$/, 'dashboard', (agentId) => html`<${AgentDetail} agentId=${agentId} />`],
  [/^\/admin\/agents\/([^/]+)\/conversations$/, 'dashboard', (agentId) => html`<${ConversationList} agentId=${agentId} />`],
  [/^\/admin\/agents\/([^/]+)\/conversations\/([^/]+)$/, 'dashboard', (agentId, id) => html`<${Conversation} agentId=${agentId} conversationId=${id} />`],
  [/^\/admin\/agents\/([^/]+)\/callbacks$/, 'dashboard', (agentId) => html`<${CallbackLog} agentId=${agentId} />`],
  [/^\/admin\/agents\/([^/]+)\/calls$/, 'calls', (agentId) => html`<${CallList} agentId=${agentId} />`],
  [/^\/admin\/calls$/, 'calls', () => html`<${CallList} />`],
  [/^\/admin\/calls\/([^/]+)$/, 'calls', (callId) => html`<${CallPage} callId=${callId} />`],
  [/^\/admin\/do-not-contact$/, 'contacts', () => html`<${DoNotContact} />`],
  [/^\/admin\/providers$/, 'providers', () => html`<${Providers} />`],
];

function route() {
  const path = location.pathname.replace(/\/+$/, '');
  for (const [pattern, current, page] of ROUTES) {
    const match = pattern.exec(path);
    if (match) return { current, page: () => page(...match.slice(1).map(decodeURIComponent)) };
  }
  return { current: 'dashboard', page: () => html`<${Dashboard} />` };
}

const r = route();
render(html`<${AdminPage} current=${r.current} page=${r.page} />`, document.getElementById('app'));
