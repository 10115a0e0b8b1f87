import type { HttpAdapter } from '../src/http/adapter.js';
import { selectAdapter, type AdapterSetting } from '../src/http/select-adapter.js';

/** The adapter the gateway's tests run on: SWITCHBOARD_HTTP_ADAPTER (scripts/test.mjs runs them again with `node`), else auto. */
export async function testAdapter(): Promise<HttpAdapter> {
  const setting = (process.env.SWITCHBOARD_HTTP_ADAPTER ?? 'auto') as AdapterSetting;
  return (await selectAdapter(setting)).adapter;
}
