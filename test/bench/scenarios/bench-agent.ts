import type { GatewayUnderTest } from '../types.js';

/** The simulator's credentials, from its control API. */
export async function simulatorCredentials(gateway: GatewayUnderTest): Promise<{ twilio: { accountSid: string; authToken: string } }> {
  const res = await fetch(`${gateway.simulatorUrl}/_sim/info`);
  if (res.status !== 200) throw new Error(`GET /_sim/info answered ${res.status}`);
  return ((await res.json()) as { credentials: { twilio: { accountSid: string; authToken: string } } }).credentials;
}

/**
 * The URL a load generator signs a Twilio webhook for: the gateway's URL without its port. Twilio
 * signs an https URL on the default port without one, and twilio's `validateRequest` tries the URL
 * without the port first, so in a deployment behind TLS one HMAC decides. Signing the loopback URL
 * with its port would make every request take the second try, a cost a deployment does not pay.
 */
export function twilioSignedUrl(url: string): string {
  const parsed = new URL(url);
  parsed.port = '';
  return parsed.toString();
}

/**
 * Provisions an agent for a scenario and lifts its limits (the defaults would refuse a benchmark's
 * load, as they should for a runaway agent). Returns its client token and addresses.
 */
export async function provisionBenchAgent(
  gateway: Pick<GatewayUnderTest, 'url' | 'orchestratorToken'>,
  agentId: string,
  channels: string[],
): Promise<{ securityToken: string; channels: Record<string, { address: string }> }> {
  const auth = { authorization: `Bearer ${gateway.orchestratorToken}`, 'content-type': 'application/json' };
  const res = await fetch(`${gateway.url}/api/v1/provision`, { method: 'POST', headers: auth, body: JSON.stringify({ agentId, displayName: agentId, channels }) });
  const agent = (await res.json()) as { securityToken: string; channels: Record<string, { address: string }> };
  if (res.status !== 201) throw new Error(`provisioning ${agentId} answered ${res.status}: ${JSON.stringify(agent)}`);
  const unlimited = { actionsPerMinute: null, actionsPerHour: null, actionsPerDay: null, spendPerDay: null, spendPerMonth: null };
  const limits = await fetch(`${gateway.url}/admin/api/agents/${agentId}/limits`, { method: 'PUT', headers: auth, body: JSON.stringify({ limits: unlimited }) });
  if (limits.status !== 200) throw new Error(`lifting the limits of ${agentId} answered ${limits.status}`);
  return agent;
}

/** What the store holds for an agent's channel, read through the API. */
export async function storedMessageCount(gateway: Pick<GatewayUnderTest, 'url'>, token: string, channel: string): Promise<number> {
  const res = await fetch(`${gateway.url}/api/v1/channel-status`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { channels: Record<string, { messageCount: number }> };
  return body.channels[channel]?.messageCount ?? 0;
}
