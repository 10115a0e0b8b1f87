#!/usr/bin/env node
// Runs every *.test.ts under the workspaces with node:test through tsx.
// Node 20's test runner takes no globs, so the files are listed here.
// Usage: npm test [-- <path filter>...]
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const roots = ['sdk', 'client', 'runtime', 'gateway', 'drivers', 'simulator', 'admin-ui', 'test'];
const skip = new Set(['node_modules', 'dist', 'bench', 'data']);

function collect(dir, out) {
  for (const name of readdirSync(dir)) {
    if (skip.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, out);
    else if (name.endsWith('.test.ts')) out.push(relative(root, path));
  }
  return out;
}

const filters = process.argv.slice(2);
const files = roots
  .flatMap((r) => collect(join(root, r), []))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error(`No test files match ${filters.join(' ') || 'the workspaces'}.`);
  process.exit(1);
}
/**
 * A pass's suites, declared by name: a test file, or a folder ending in `/`. A name that matches no test
 * file stops the run, so a renamed or moved suite cannot drop out of a pass unnoticed.
 */
function declared(pass, names) {
  const all = roots.flatMap((r) => collect(join(root, r), []));
  const covers = (name, file) => (name.endsWith('/') ? file.startsWith(name) : file === name);
  const missing = names.filter((name) => !all.some((file) => covers(name, file)));
  if (missing.length > 0) {
    console.error(`scripts/test.mjs: the ${pass} names ${missing.join(', ')}, which ${missing.length === 1 ? 'is' : 'are'} no test file or folder; fix the list.`);
    process.exit(1);
  }
  return (file) => names.some((name) => covers(name, file));
}

// Suites that exercise the HTTP adapter (HTTP, SSE, Streamable HTTP, voice WebSocket, body limits,
// back-pressure, shutdown) run a second time on the portable node:http adapter, so both adapters pass
// the same suite; the rest of the suite runs once, on the adapter the gateway picks (uWS where it loads).
const inAdapterPass = declared('node:http pass', [
  'gateway/test/',
  'test/integration/bad-input.test.ts',
  'test/integration/malformed-input.test.ts',
  'test/integration/mcp.test.ts',
  'test/integration/mcp-conformance.test.ts',
  'test/integration/mcp-modern.test.ts',
  'test/integration/mcp-listen.test.ts',
  'test/integration/mcp-tasks.test.ts',
  'test/integration/wait-for-reply.test.ts',
  'test/integration/mcp-sessions.test.ts',
  'test/integration/oauth.test.ts',
  'test/integration/voice-stream.test.ts',
  'test/integration/lifecycle.test.ts',
]);
const secondPass = process.env.SWITCHBOARD_HTTP_ADAPTER ? [] : files.filter(inAdapterPass);
// The end-to-end suites of messaging, MCP, voice, provisioning, auth, limits and admin run once more against a
// cluster (test/helpers/gateway.ts with SWITCHBOARD_TEST_CLUSTER=1): each test gateway in cluster mode
// with two runtime nodes, its own nats-server and PostgreSQL database.
const inClusterPass = declared('cluster pass', [
  'test/integration/send-message.test.ts',
  'test/integration/tracing.test.ts',
  'test/integration/inbound.test.ts',
  'test/integration/inbox.test.ts',
  'test/integration/callback-log.test.ts',
  'test/integration/callback-ssrf.test.ts',
  'test/integration/mcp.test.ts',
  'test/integration/mcp-sessions.test.ts',
  'test/integration/conversations.test.ts',
  'test/integration/whatsapp-window.test.ts',
  'test/integration/consent.test.ts',
  'test/integration/mcp-conformance.test.ts',
  'test/integration/mcp-modern.test.ts',
  'test/integration/mcp-listen.test.ts',
  'test/integration/mcp-tasks.test.ts',
  'test/integration/wait-for-reply.test.ts',
  'test/integration/provisioning.test.ts',
  'test/integration/reprovision.test.ts',
  'test/integration/auth.test.ts',
  'test/integration/billing.test.ts',
  'test/integration/bad-input.test.ts',
  'test/integration/malformed-input.test.ts',
  'test/integration/contract-conformance.test.ts',
  'test/integration/date-time-input.test.ts',
  'test/integration/lifecycle.test.ts',
  'test/integration/admin-ops.test.ts',
  'test/integration/voice-relay.test.ts',
  'test/integration/voice-stream.test.ts',
  'test/integration/voice-operations.test.ts',
  'test/integration/voice-calls.test.ts',
  'test/integration/voice-recordings.test.ts',
  'test/integration/tts-failover.test.ts',
  'test/integration/monitoring-rules.test.ts',
  'test/integration/calling-hours.test.ts',
  'test/integration/email-suppression.test.ts',
  'test/integration/provider-failover.test.ts',
  'test/integration/admin-providers.test.ts',
  'test/integration/whatsapp-opt-out.test.ts',
  'test/integration/list-unsubscribe.test.ts',
  'test/integration/postmark-email.test.ts',
  'test/integration/whatsapp-failover.test.ts',
]);
const clusterPass = process.env.SWITCHBOARD_TEST_CLUSTER ? [] : files.filter(inClusterPass);

// A test may take three minutes at most; a file whose tests are done exits even if it leaked a handle,
// and the whole run is stopped after WATCHDOG_MINUTES, so a hang fails CI instead of stalling it.
const WATCHDOG_MINUTES = Number(process.env.TEST_WATCHDOG_MINUTES ?? 55);
let child;
const watchdog = setTimeout(() => {
  console.error(`
The test run passed ${WATCHDOG_MINUTES} minutes and was stopped: a test or a leaked handle hangs.`);
  if (child) process.kill(-child.pid, 'SIGKILL');
  process.exit(1);
}, WATCHDOG_MINUTES * 60_000);
watchdog.unref();
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child && process.kill(-child.pid, signal));

// Files that start many processes and inject faults: on a loaded 2-core machine they take longer than
// three minutes, and --test-timeout bounds a whole file (setup included), not only each of its tests,
// so they run last with 15 minutes each (their tests set their own limits).
const isLong = declared('long-file list', ['test/e2e/cluster.test.ts', 'test/e2e/cluster-faults.test.ts', 'test/e2e/cluster-nats-failover.test.ts', 'test/e2e/cluster-voice.test.ts', 'test/e2e/third-party-driver.test.ts', 'test/e2e/rolling-upgrade.test.ts', 'test/integration/cluster-quickstart.test.ts']);
const LONG_TIMEOUT_MS = 15 * 60_000;
// Test files run two at a time: most of a file's time is spent waiting on processes, sockets and timers,
// so two of them share the two cores of a CI machine well. TEST_CONCURRENCY=1 runs them one by one.
const CONCURRENCY = Number(process.env.TEST_CONCURRENCY ?? 2);

const PROGRESS = new URL('./progress-reporter.mjs', import.meta.url).href;

function run(list, extraEnv, timeoutMs = 180_000) {
  // The spec report on stdout; on stderr a line as each file ends (scripts/progress-reporter.mjs), as the spec
  // report holds back a file's lines until the files before it are done.
  const reporters = ['--test-reporter=spec', '--test-reporter-destination=stdout', `--test-reporter=${PROGRESS}`, '--test-reporter-destination=stderr'];
  const args = ['--conditions=switchboard-source', '--import', 'tsx', '--test', ...reporters, `--test-concurrency=${CONCURRENCY}`, `--test-timeout=${timeoutMs}`, '--test-force-exit', ...list];
  return new Promise((resolve) => {
    child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test', ...extraEnv }, detached: true });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const long = files.filter(isLong);
const short = files.filter((f) => !long.includes(f));
let code = short.length > 0 ? await run(short, {}) : 0;
if (long.length > 0) code = Math.max(code, await run(long, {}, LONG_TIMEOUT_MS));
if (secondPass.length > 0) {
  console.log(`
# again on the node:http adapter (SWITCHBOARD_HTTP_ADAPTER=node): ${secondPass.length} file(s)
`);
  code = Math.max(code, await run(secondPass, { SWITCHBOARD_HTTP_ADAPTER: 'node' }));
}
if (clusterPass.length > 0) {
  console.log(`
# again against a cluster (SWITCHBOARD_TEST_CLUSTER=1: gateway + 2 runtime nodes, NATS, PostgreSQL): ${clusterPass.length} file(s)
`);
  code = Math.max(code, await run(clusterPass, { SWITCHBOARD_TEST_CLUSTER: '1' }));
}
process.exit(code);
