import type OpenAI from 'openai';
import type { HealthResult } from '@switchboard/sdk';
import { statusOf } from './client.js';

/** Lists the models: proves the key, and says whether the configured speech model is among them. */
export async function modelsHealth(client: OpenAI, model: string): Promise<HealthResult> {
  try {
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    if (!ids.includes(model)) return { ok: false, message: `OpenAI accepted the API key but does not offer the model ${model}.` };
    return { ok: true, message: `OpenAI offers ${ids.length} models, ${model} among them.` };
  } catch (err) {
    const status = statusOf(err);
    const reason = status === 401 || status === 403 ? 'refused the API key' : 'could not be reached';
    return { ok: false, message: `OpenAI ${reason}${status === undefined ? '' : ` (HTTP ${status})`}.` };
  }
}
