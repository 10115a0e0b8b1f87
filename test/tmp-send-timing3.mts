import { startTestGateway, provisionAgent } from './helpers/gateway.js';
const t = await startTestGateway({ NODE_ENV: 'production' });
const agent = await provisionAgent(t, 'timing', ['sms']);
const db = (t.gateway.runtime as any).store.db;
const stats: Record<string, number[]> = {};
for (const name of ['executeAll', 'get', 'query', 'transaction']) {
  const orig = db[name].bind(db);
  db[name] = async (...a: unknown[]) => { const s = performance.now(); try { return await orig(...a); } finally { (stats[name] ??= []).push(performance.now() - s); } };
}
const lat: number[] = [];
const end = performance.now() + 4000;
let n = 0;
await Promise.all(Array.from({ length: 50 }, async () => {
  while (performance.now() < end) {
    const s = performance.now();
    const res = await t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'sms', to: '+14155550123', body: 'hi' } });
    await res.text(); n++;
    lat.push(performance.now() - s);
  }
}));
const avg = (a: number[]) => (a.reduce((x, y) => x + y, 0) / a.length).toFixed(2);
console.log('sends', n, 'rate', (n / 4).toFixed(0), 'avg lat', avg(lat));
for (const [k, v] of Object.entries(stats)) console.log(k, v.length, 'avg ms', avg(v));
await t.close();
