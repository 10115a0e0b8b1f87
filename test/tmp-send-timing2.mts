import { startTestGateway } from './helpers/gateway.js';
import twilio from 'twilio';
import { BaseUrlRequestClient } from '@switchboard/driver-twilio';
const t = await startTestGateway({ NODE_ENV: 'production' });
const sim = t.sim as any;
const c = sim.credentials.twilio;
const client = twilio(c.accountSid, c.authToken, { httpClient: new BaseUrlRequestClient(sim.baseUrls?.twilio ?? sim.url, { keepAlive: true }), autoRetry: false });
for (let i = 0; i < 5; i++) {
  const s = performance.now();
  await client.messages.create({ from: '+14155550100', to: '+14155550123', body: 'x' });
  console.log('create', (performance.now() - s).toFixed(2));
}
for (let i = 0; i < 3; i++) {
  const s = performance.now();
  const r = await fetch(`${sim.url}/2010-04-01/Accounts/${c.accountSid}/Messages.json`, { method: 'POST', headers: { authorization: 'Basic ' + Buffer.from(`${c.accountSid}:${c.authToken}`).toString('base64'), 'content-type': 'application/x-www-form-urlencoded' }, body: 'From=%2B14155550100&To=%2B14155550123&Body=x' });
  await r.text();
  console.log('fetch', r.status, (performance.now() - s).toFixed(2));
}
await t.close();
