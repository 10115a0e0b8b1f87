import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { eventually } from '@switchboard/runtime/testing';
import { startCallbackReceiver, type CallbackReceiver } from '../helpers/callback-receiver.js';
import { provisionAgent, startTestGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * The shipped Prometheus rules and Grafana dashboard (deploy/monitoring/): promtool accepts the rules
 * and passes their unit tests, and every metric they name is in a running server's /metrics: the
 * gateway's, and in a cluster (SWITCHBOARD_TEST_CLUSTER=1) the runtime nodes' as well.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MONITORING = join(ROOT, 'deploy', 'monitoring');
const RULES = join(MONITORING, 'switchboard-alerts.yml');
const RULE_TESTS = join(MONITORING, 'switchboard-alerts.test.yml');
const DASHBOARD = join(MONITORING, 'switchboard-dashboard.json');
const PROMTOOL = '/usr/bin/promtool';
const CLUSTER = process.env.SWITCHBOARD_TEST_CLUSTER === '1';
/** Exported only by cluster runtime nodes (gateway/src/node-metrics.ts). */
const NODE_ONLY = /^switchboard_(node|cluster)_/;
/** Series Prometheus makes itself, not the server. */
const PROMETHEUS_OWN = new Set(['up', 'scrape_duration_seconds', 'scrape_samples_scraped']);

const run = promisify(execFile);

/** Runs promtool; absent, the test fails and says how to install it (CI's .ci/run does). */
async function promtool(...args: string[]): Promise<string> {
  assert.ok(existsSync(PROMTOOL), `${PROMTOOL} is missing: install Debian's prometheus package (apt-get install -y prometheus), as .ci/run does`);
  try {
    const { stdout, stderr } = await run(PROMTOOL, args, { cwd: MONITORING });
    return stdout + stderr;
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    assert.fail(`promtool ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

const KEYWORDS = new Set(['and', 'or', 'unless', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'offset', 'bool', 'inf', 'nan']);

/** The metric names a PromQL expression reads: identifiers that are not functions, keywords, label names or values, durations or Grafana variables. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""') // strings
    .replace(/\{[^}]*\}/g, '') // label matchers
    .replace(/\[[^\]]*\]/g, '') // ranges and subqueries
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '') // label lists
    .replace(/\$\{?\w+\}?/g, ''); // Grafana variables
  const names = new Set<string>();
  for (const match of bare.matchAll(/(?<![\w:.])([A-Za-z_:][\w:]*)(?!\w)(\s*\()?/g)) {
    const [, name, call] = match;
    if (call || KEYWORDS.has(name!.toLowerCase())) continue;
    names.add(name!);
  }
  return [...names];
}

interface RuleFile {
  groups: { name: string; rules: { alert?: string; record?: string; expr: string }[] }[];
}

function ruleExpressions(): string[] {
  const rules = parseYaml(readFileSync(RULES, 'utf8')) as RuleFile;
  return rules.groups.flatMap((g) => g.rules.map((r) => r.expr));
}

interface DashboardPanel {
  title?: string;
  targets?: { expr?: string }[];
  panels?: DashboardPanel[];
}

function dashboardExpressions(): string[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: DashboardPanel[] };
  const walk = (panels: DashboardPanel[]): string[] => panels.flatMap((p) => [...(p.targets ?? []).flatMap((t) => (t.expr ? [t.expr] : [])), ...walk(p.panels ?? [])]);
  return walk(dashboard.panels);
}

/** Metric families in a Prometheus text exposition, by name, with their type. */
function families(exposition: string): Map<string, string> {
  const types = new Map<string, string>();
  for (const [, name, type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) types.set(name!, type!);
  return types;
}

/** Whether a name the rules read is in the exposition: a family, or a histogram's or summary's _bucket, _sum or _count. */
function exported(name: string, types: Map<string, string>): boolean {
  if (types.has(name)) return true;
  const base = /^(.*)_(bucket|sum|count)$/.exec(name);
  if (!base) return false;
  const type = types.get(base[1]!);
  return type === 'histogram' || (type === 'summary' && base[2] !== 'bucket');
}

/** A sample's value in an exposition, summed over the series that match `name{labels...}` (0 when none). */
function sampled(exposition: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const [, series, value] of exposition.matchAll(/^(\S+?(?:\{[^}]*\})?) (\S+)$/gm)) {
    const [, metric, labelText = ''] = /^([^{]+)(?:\{(.*)\})?$/.exec(series!)!;
    if (metric !== name) continue;
    if (Object.entries(labels).every(([k, v]) => labelText.includes(`${k}="${v}"`))) total += Number(value);
  }
  return total;
}

describe('monitoring: shipped alert rules and dashboard', () => {
  it('promtool accepts the rules and their unit tests pass', async () => {
    const checked = await promtool('check', 'rules', RULES);
    assert.match(checked, /SUCCESS: \d+ rules found/);
    const tested = await promtool('test', 'rules', RULE_TESTS);
    assert.match(tested, /SUCCESS/);
  });

  it('the dashboard is importable: its datasource is the DS_PROMETHEUS variable', () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { templating: { list: { name: string; type: string }[] }; panels: (DashboardPanel & { datasource?: { uid: string } })[] };
    assert.ok(dashboard.templating.list.some((v) => v.name === 'DS_PROMETHEUS' && v.type === 'datasource'));
    const queried = dashboard.panels.filter((p) => p.targets);
    assert.ok(queried.length >= 20, `${queried.length} panels with queries`);
    for (const panel of queried) assert.equal(panel.datasource?.uid, '${DS_PROMETHEUS}', `panel ${panel.title}`);
  });

  it('the PromQL name reader takes metrics and leaves functions, labels and keywords', () => {
    assert.deepEqual(
      metricNames('histogram_quantile(0.95, sum by (le, path) (rate(switchboard_delivery_latency_seconds_bucket{path="session"}[$__rate_interval]))) > 5 and on (instance) up == 0'),
      ['switchboard_delivery_latency_seconds_bucket', 'up'],
    );
    assert.deepEqual(metricNames('max(a_b) - sum(c:d) > 2 * scalar(e_f offset 5m)'), ['a_b', 'c:d', 'e_f']);
  });

  describe(`every metric the rules and the dashboard name is exported (${CLUSTER ? 'cluster: gateway and runtime nodes' : 'embedded'})`, () => {
    let t: TestGateway;
    let receiver: CallbackReceiver;
    let signingSecret: string | undefined;

    before(async () => {
      t = await startTestGateway();
      receiver = await startCallbackReceiver(() => signingSecret);
    });
    after(async () => {
      await t.close();
      await receiver.close();
    });

    /** The gateway's /metrics and, in a cluster, each runtime node's (on its HEALTH_PORT). */
    async function scrape(): Promise<{ gateway: string; nodes: string[] }> {
      const res = await t.call('GET', '/metrics');
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
      const nodes = await Promise.all(
        t.nodes.map(async (node) => {
          assert.ok(node.healthUrl, `node ${node.nodeId} serves no probes`);
          const answer = await fetch(`${node.healthUrl}/metrics`);
          assert.equal(answer.status, 200, `node ${node.nodeId} /metrics`);
          return answer.text();
        }),
      );
      return { gateway: await res.text(), nodes };
    }

    it('after an inbound message delivered by callback and a send, the metrics count them', async () => {
      const agent = await provisionAgent(t, 'watched', ['sms']);
      const set = await t.call('PUT', '/api/v1/callback-url', { token: agent.securityToken, json: { callbackUrl: receiver.url } });
      assert.equal(set.status, 200);
      signingSecret = ((await set.json()) as { signingSecret: string }).signingSecret;
      const inbound = await t.sim.inbound.sms({ agentId: 'watched', from: '+14155550123', to: agent.channels.sms!.address, body: 'are you watching?' });
      assert.equal(inbound.status, 200);
      await receiver.waitFor(1);
      const sent = await t.call('POST', '/api/v1/send-message', { token: agent.securityToken, json: { channel: 'sms', to: '+14155550123', body: 'always' } });
      assert.equal(sent.status, 200, await sent.clone().text());

      // Deliveries are counted where they run: embedded here, in a cluster on the node holding the agent.
      await eventually(async () => {
        const { gateway, nodes } = await scrape();
        const all = [gateway, ...nodes];
        const delivered = all.reduce((n, text) => n + sampled(text, 'switchboard_delivery_latency_seconds_count', { path: 'callback' }), 0);
        const posts = all.reduce((n, text) => n + sampled(text, 'switchboard_callback_attempts_total', { outcome: 'delivered' }), 0);
        return delivered >= 1 && posts >= 1 && sampled(gateway, 'switchboard_sends_total', { channel: 'sms', provider: 'twilio' }) >= 1;
      }, { message: 'the delivery, the callback post and the send in the metrics' });
      const { gateway } = await scrape();
      assert.equal(sampled(gateway, 'switchboard_dependency_up', { dependency: 'database' }), 1);
      assert.equal(sampled(gateway, 'switchboard_callback_endpoints', { state: 'failing' }), 0);
      if (CLUSTER) assert.equal(sampled(gateway, 'switchboard_dependency_up', { dependency: 'nats' }), 1);
    });

    it('names in the rules and the dashboard are all in /metrics', async () => {
      const { gateway, nodes } = await scrape();
      const types = families(gateway);
      for (const text of nodes) for (const [name, type] of families(text)) types.set(name, type);
      const named = new Set([...ruleExpressions(), ...dashboardExpressions()].flatMap(metricNames));
      assert.ok(named.size >= 20, `only ${named.size} metric names found in the rules and the dashboard`);
      const missing = [...named].filter((name) => !PROMETHEUS_OWN.has(name) && (CLUSTER || !NODE_ONLY.test(name)) && !exported(name, types));
      assert.deepEqual(missing, [], `named by the rules or the dashboard but not exported ${CLUSTER ? 'by the gateway or the nodes' : 'by the embedded server'}`);
      if (!CLUSTER) assert.ok([...named].some((name) => NODE_ONLY.test(name)), 'the rules watch the cluster too');
    });

    it(CLUSTER ? "each runtime node reports its partitions, its lease heartbeat and NATS" : 'an embedded server has no runtime nodes to scrape', async () => {
      const { nodes } = await scrape();
      if (!CLUSTER) return assert.equal(nodes.length, 0);
      assert.equal(nodes.length, 2);
      const held = nodes.reduce((n, text) => n + sampled(text, 'switchboard_node_partitions_held'), 0);
      assert.equal(held, sampled(nodes[0]!, 'switchboard_cluster_partitions'));
      for (const text of nodes) {
        assert.ok(sampled(text, 'switchboard_node_lease_heartbeat_age_seconds') < sampled(text, 'switchboard_node_lease_ttl_seconds'));
        assert.equal(sampled(text, 'switchboard_cluster_live_nodes'), 2);
        assert.equal(sampled(text, 'switchboard_dependency_up', { dependency: 'nats' }), 1);
        assert.equal(sampled(text, 'switchboard_dependency_up', { dependency: 'database' }), 1);
        assert.equal(sampled(text, 'switchboard_node_problems'), 0);
      }
    });
  });
});
