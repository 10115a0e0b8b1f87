import twilio from 'twilio';
import { startTestGateway, provisionAgent } from './helpers/gateway.js';
const t = await startTestGateway({ NODE_ENV: 'production' });
const agent = await provisionAgent(t, 'lat', ['sms']);
const c = (t.sim as any).credentials.twilio;
const url = `${t.url}/webhooks/lat/sms`;
const db = (t.gateway.runtime as any).store.db;
const origEA = db.executeAll.bind(db); const eaT: number[] = [];
db.executeAll = async (s: any) => { const a = performance.now(); try { return await origEA(s); } finally { eaT.push(performance.now() - a); } };
const lat: number[] = [];
for (let i = 0; i < 300; i++) {
  const params = { MessageSid: `SM${i}x${Date.now()}`, AccountSid: c.accountSid, From: '+14155550123', To: agent.channels.sms!.address, Body: 'hi', SmsStatus: 'received' };
  const s = performance.now();
  const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilio.getExpectedTwilioSignature(c.authToken, url, params) }, body: new URLSearchParams(params).toString() });
  await r.text();
  lat.push(performance.now() - s);
  await new Promise((r) => setTimeout(r, 2));
}
lat.sort((a, b) => a - b); eaT.sort((a, b) => a - b);
console.log('webhook p50', lat[150].toFixed(2), 'p99', lat[297].toFixed(2), '| executeAll n', eaT.length, 'p50', eaT[eaT.length >> 1].toFixed(2), 'p99', eaT[Math.floor(eaT.length * 0.99)].toFixed(2));
await t.close();
