import { render } from 'preact';
import { html } from 'htm/preact';
import { Dashboard, AgentDetail } from './dashboard.js';
import { Setup } from './setup.js';
import { AdminPage } from './shell.js';
import './style.css';

function route() {
  const path = location.pathname.replace(/\/+$/, '');
  const agent = /^\/admin\/agents\/([^/]+)$/.exec(path);
  if (agent) return { page: 'agent', agentId: decodeURIComponent(agent[1]) };
  if (path === '/admin/setup') return { page: 'setup' };
  return { page: 'dashboard' };
}

const r = route();
const page = () => (r.page === 'setup' ? html`<${Setup} />` : r.page === 'agent' ? html`<${AgentDetail} agentId=${r.agentId} />` : html`<${Dashboard} />`);
render(html`<${AdminPage} current=${r.page === 'agent' ? 'dashboard' : r.page} page=${page} />`, document.getElementById('app'));
