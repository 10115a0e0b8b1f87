#!/usr/bin/env node
// Smoke test of the BUILT server (gateway/dist) on whatever Node runs this file: start in demo mode
// on a free port with a temporary data dir, provision an agent, send and receive on sms, email,
// whatsapp and line, hold an MCP session with the official client (Streamable HTTP and SSE), place
// one stream-mode call over the voice WebSocket, and shut down cleanly.
// Plain JavaScript on purpose: it runs under any supported Node without tsx.
// Usage: node test/smoke/smoke.mjs [--expect-adapter uws|node]   (HTTP_ADAPTER in the env is passed on)
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = join(ROOT, 'gateway/dist/cli.js');
const CUSTOMER = '+14155550123';
const LINE_USER = 'U' + 'ab'.repeat(16);
const { values } = parseArgs({ options: { 'expect-adapter': { type: 'string' } } });

const started = Date.now();
const dataDir = mkdtempSync(join(tmpdir(), 'switchboard-smoke-'));
const orchestratorToken = `sb_orch_smoke_${randomBytes(12).toString('hex')}`;
let child;
let output = '';
const results = [];

function fail(message) {
  throw new Error(message);
}

async function step(name, run) {
  const t0 = Date.now();
  try {
    const detail = await run();
    results.push(`ok   ${name} (${Date.now() - t0} ms)${detail ? ` — ${detail}` : ''}`);
    console.log(results.at(-1));
  } catch (err) {
    console.log(`FAIL ${name} (${Date.now() - t0} ms): ${err instanceof Error ? err.message : String(err)}`);
    throw err;
  }
}

async function until(check, ms, what) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) fail(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function main() {
  console.log(`smoke: Node ${process.version} (ABI ${process.versions.modules}), ${CLI}`);
  let base;
  let sim;
  await step('start in demo mode on a free port', async () => {
    child = spawn(process.execPath, [CLI, 'start', '--port', '0', '--data-dir', dataDir], {
      cwd: dataDir,
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'development',
        LOG_LEVEL: 'info',
        DEMO_MODE: 'true',
        VOICE_MODE: 'stream',
        ORCHESTRATOR_TOKEN: orchestratorToken,
        ...(process.env.HTTP_ADAPTER ? { HTTP_ADAPTER: process.env.HTTP_ADAPTER } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await Promise.race([
      until(() => /API:\s+http/.test(output) && /Simulator:\s+http/.test(output), 60_000, 'the start-up banner'),
      exited.then((code) => fail(`the server exited (${code}):\n${output}`)),
    ]);
    base = /API:\s+(http:\/\/[^/\s]+)\/api\/v1/.exec(output)[1];
    sim = /Simulator:\s+(http:\/\/[^/\s]+)\/_sim/.exec(output)[1];
    return base;
  });

  await step('one log line names the HTTP adapter and why', async () => {
    const lines = output.split('\n').filter((line) => line.includes('start-up: HTTP adapter'));
    if (lines.length !== 1) fail(`expected one adapter line, saw ${lines.length}:\n${output}`);
    const entry = JSON.parse(lines[0]);
    const expected = values['expect-adapter'];
    if (expected && entry.adapter !== expected) fail(`adapter ${entry.adapter}, expected ${expected}: ${entry.reason}`);
    if (output.includes('Falling back to a NodeJS implementation')) fail('the uWS package printed its fallback warning');
    return `${entry.adapter}: ${entry.reason}`;
  });

  const api = async (method, path, { token, json, expect = 200 } = {}) => {
    const headers = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (json !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${base}${path}`, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
    const text = await res.text();
    const body = text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
    if (res.status !== expect) fail(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return body;
  };
  const simCall = async (path, json) => {
    const res = await fetch(`${sim}/_sim${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(json) });
    const body = await res.json();
    if (res.status !== 200) fail(`POST /_sim${path}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    return body;
  };

  await step('health and readiness', async () => {
    const health = await api('GET', '/health');
    if (health.status !== 'ok' || health.demoMode !== true) fail(JSON.stringify(health));
    await api('GET', '/health/ready');
  });

  let team;
  let agent;
  await step('provision an agent on every channel', async () => {
    team = (await api('GET', '/admin/api/my-token', { token: orchestratorToken })).token;
    agent = await api('POST', '/api/v1/provision', {
      token: team,
      expect: 201,
      json: { agentId: 'smoke', displayName: 'Smoke', channels: ['sms', 'email', 'whatsapp', 'line', 'voice'], greeting: 'Hello from the smoke test.' },
    });
    return Object.entries(agent.channels)
      .map(([channel, { address }]) => `${channel}=${address}`)
      .join(' ');
  });

  const client = new Client({ name: 'smoke', version: '0.0.0' });
  const notes = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void notes.push(n.params.data));
  await step('MCP session over Streamable HTTP with the official client', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`/mcp?agentId=smoke`, base), {
      requestInit: { headers: { authorization: `Bearer ${agent.securityToken}` } },
      reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 50, maxReconnectionDelay: 50, reconnectionDelayGrowFactor: 1 },
    });
    await client.connect(transport);
    const { tools } = await client.listTools();
    if (!tools.some((t) => t.name === 'comms_send_message')) fail('comms_send_message is not listed');
    const ping = await client.callTool({ name: 'comms_ping', arguments: {} });
    if (ping.isError) fail(JSON.stringify(ping));
    return `${tools.length} tools`;
  });

  const sends = [
    { channel: 'sms', to: CUSTOMER, body: 'smoke sms' },
    // The customer has not written on WhatsApp yet: outside its 24-hour window only a template goes.
    { channel: 'whatsapp', to: CUSTOMER, template: { name: 'appointment_reminder', variables: { 1: 'Smoke', 2: 'today' } } },
    { channel: 'line', to: LINE_USER, body: 'smoke line' },
  ];
  for (const send of sends) {
    await step(`send ${send.channel} (REST)`, async () => {
      const res = await api('POST', '/api/v1/send-message', { token: agent.securityToken, json: send });
      if (!res.success) fail(JSON.stringify(res));
      return res.externalId;
    });
  }
  await step('send email (MCP tool)', async () => {
    const res = await client.callTool({ name: 'comms_send_message', arguments: { channel: 'email', to: 'ada@example.com', subject: 'Smoke', body: 'smoke email' } });
    if (res.isError) fail(JSON.stringify(res.content));
    return JSON.parse(res.content[0].text).externalId;
  });
  await step('the providers received all four', async () => {
    const res = await fetch(`${sim}/_sim/messages`);
    const { messages } = await res.json();
    const channels = new Set(messages.map((m) => m.channel));
    for (const channel of ['sms', 'whatsapp', 'line', 'email']) if (!channels.has(channel)) fail(`no ${channel} message at the provider`);
  });

  await step('receive sms, whatsapp, email and line live over the MCP session', async () => {
    await simCall('/inbound/sms', { agentId: 'smoke', from: CUSTOMER, to: agent.channels.sms.address, body: 'in sms' });
    await simCall('/inbound/whatsapp', { agentId: 'smoke', from: CUSTOMER, to: agent.channels.whatsapp.address, body: 'in whatsapp' });
    await simCall('/inbound/email', { agentId: 'smoke', from: 'Ada <ada@example.com>', to: agent.channels.email.address, subject: 'In', text: 'in email' });
    await simCall('/inbound/line', { agentId: 'smoke', userId: LINE_USER, text: 'in line' });
    // Only message notifications name a channel; the session's other log notifications do not count.
    const received = () => new Set(notes.map((n) => n?.channel).filter((channel) => typeof channel === 'string'));
    await until(() => ['sms', 'whatsapp', 'email', 'line'].every((channel) => received().has(channel)), 15_000, 'inbound notifications on all four channels');
    return [...received()].join(', ');
  });

  await step('MCP session over HTTP+SSE', async () => {
    const sse = new Client({ name: 'smoke-sse', version: '0.0.0' });
    const url = new URL(`/sse?token=${encodeURIComponent(team)}`, base);
    await sse.connect(new SSEClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${team}` } } }));
    const ping = await sse.callTool({ name: 'comms_ping', arguments: {} });
    await sse.close();
    if (ping.isError) fail(JSON.stringify(ping));
  });

  await step('a stream-mode call over the voice WebSocket', async () => {
    const res = await fetch(`${sim}/_sim/phone/call?wait=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agentId: 'smoke', from: CUSTOMER, to: agent.channels.voice.address, mode: 'stream', script: { steps: [{ kind: 'listen', ms: 1500 }], maxDurationMs: 20_000 } }),
    });
    const call = await res.json();
    if (res.status !== 200) fail(`${res.status} ${JSON.stringify(call)}`);
    const recording = call.recording ?? call;
    if (recording.mode !== 'stream') fail(`mode ${recording.mode}: ${JSON.stringify(recording).slice(0, 400)}`);
    if ((recording.errors ?? []).length > 0) fail(`errors: ${JSON.stringify(recording.errors)}`);
    if (!(recording.frames?.received > 0)) fail(`no audio frames came back: ${JSON.stringify(recording.frames)}`);
    return `${recording.frames.received} frames, ${recording.status}`;
  });

  await step('channel status counts the traffic', async () => {
    const status = await api('GET', '/api/v1/channel-status', { token: agent.securityToken });
    for (const channel of ['sms', 'email', 'whatsapp', 'line']) {
      if (!(status.channels[channel]?.messageCount > 0)) fail(`${channel}: ${JSON.stringify(status.channels[channel])}`);
    }
  });

  await client.close();
  await step('SIGTERM shuts down cleanly', async () => {
    const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('timeout'), 20_000))]);
    if (code !== 0) fail(`exit ${code}:\n${output.slice(-2000)}`);
  });
}

main().then(
  () => {
    console.log(`smoke: passed on Node ${process.version} in ${Date.now() - started} ms`);
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  },
  (err) => {
    console.error(`smoke: FAILED on Node ${process.version}: ${err instanceof Error ? err.stack : String(err)}`);
    console.error(`--- server output (last 4000 chars) ---\n${output.slice(-4000)}`);
    if (child && child.exitCode === null) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(1);
  },
);
