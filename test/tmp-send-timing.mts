import { startTestGateway, provisionAgent } from './helpers/gateway.js';
const t = await startTestGateway({ NODE_ENV: 'production' });
const agent = await provisionAgent(t, 'timing', ['sms']);
const store = (t.gateway.runtime as any).store;
const db = store.db;
for (const name of ['execute', 'executeAll', 'query', 'get']) {
  const orig = db[name].bind(db);
  db[name] = async (...a: unknown[]) => { const s = performance.now(); try { return await orig(...a); } finally { console.log(`  ${name} ${(performance.now() - s).toFixed(2)}ms ${String((a[0] as any)?.sql ?? a[0]).slice(0, 40).replace(/\s+/g, ' ')}`); } };
}
for (let i = 0; i < 4; i++) {
  const s = performance.now();
  const res = await t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'sms', to: '+14155550123', body: 'hi ' + i } });
  await res.text();
  console.log('send', res.status, (performance.now() - s).toFixed(2), 'ms');
}
await new Promise((r) => setTimeout(r, 300));
await t.close();
