import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CONFORMANCE_CASES, VOICE_CONFORMANCE_CASES, describeDriverConformance } from '../src/testing/index.js';
import { memoryDriver } from './fixtures/memory-driver.js';

const suite = fileURLToPath(new URL('./fixtures/memory-suite.ts', import.meta.url));

/** Runs the fixture suite in a child process with a planted flaw; returns case name → outcome. */
function run(mode: string): Map<string, string> {
  const child = spawnSync(process.execPath, ['--conditions=switchboard-source', '--import', 'tsx', '--test', '--test-reporter=tap', suite], {
    env: { ...process.env, NODE_TEST_CONTEXT: undefined, FIXTURE_MODE: mode },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const outcomes = new Map<string, string>();
  for (const line of child.stdout.split('\n')) {
    const m = /^\s+(ok|not ok) \d+ - (.+?)(?: # SKIP (.*))?$/.exec(line);
    if (m) outcomes.set(m[2]!, m[3] !== undefined ? `skip: ${m[3]}` : m[1]!);
  }
  return outcomes;
}

/** Why the messaging-only memory driver skips a voice case. */
function voiceSkip(name: string): string {
  if (name === 'voice capabilities match the manifest') return 'the driver has no voice capability (tts, stt or telephony)';
  if (/synthes|voices/.test(name)) return 'the driver has no tts capability';
  if (/recognition/.test(name)) return 'the driver has no stt capability';
  if (/Recording/.test(name)) return 'the driver has no telephony.recording capability';
  return 'the driver has no telephony capability';
}

describe('the conformance suite', () => {
  it('passes a correct driver, reporting the declared skip with its reason', () => {
    const outcomes = run('good');
    for (const name of CONFORMANCE_CASES) {
      const expected =
        name === 'an expired signature is rejected'
          ? 'skip: the memory provider signs no timestamp'
          : name.startsWith('estimateCost') || name.startsWith('findSent')
            ? `skip: the driver has no ${name.split(' ')[0]} capability`
            : (VOICE_CONFORMANCE_CASES as readonly string[]).includes(name)
              ? `skip: ${voiceSkip(name)}`
              : 'ok';
      assert.equal(outcomes.get(name), expected, name);
    }
  });

  it('fails a driver whose signature check fails open', () => {
    const outcomes = run('fail-open');
    assert.equal(outcomes.get('a missing signature is rejected'), 'not ok');
    assert.equal(outcomes.get('a tampered body is rejected'), 'not ok');
    assert.equal(outcomes.get('a signed valid request parses into events'), 'ok');
  });

  it('fails a driver whose template statuses are not lower case', () => {
    assert.equal(run('shouting-templates').get('templates lists each with its id, name, language, status and variables'), 'not ok');
  });

  it('fails a driver whose fetchStatus answers for an id it never issued', () => {
    assert.equal(run('knows-all').get('fetchStatus answers for a message it sent'), 'not ok');
  });

  it('fails a driver that calls a 4xx retryable', () => {
    const outcomes = run('retry-all');
    assert.equal(outcomes.get('a provider 4xx is a non-retryable PROVIDER_ERROR'), 'not ok');
    assert.equal(outcomes.get('a provider 5xx is a retryable PROVIDER_ERROR'), 'ok');
  });

  it('fails a case whose fixture is missing instead of passing it silently', () => {
    assert.equal(run('no-skip').get('an expired signature is rejected'), 'not ok');
  });

  it('refuses a skip naming an unknown case', () => {
    assert.throws(
      () => describeDriverConformance({ module: memoryDriver, settings: () => ({}), invalidSettings: [], skip: { 'no such case': 'typo' } as never }),
      /unknown conformance case/,
    );
  });
});
