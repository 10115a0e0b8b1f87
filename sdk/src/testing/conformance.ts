import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Driver, DriverContext, DriverModule, InboundEvent, OutboundMessage, WebhookRequest } from '../driver.js';
import { ErrorCodes } from '../errors.js';
import { validateDriver } from '../manifest.js';
import { assertAck, assertEvent, assertManifest, assertSendResult, expectCode, stripSignature, tamperBody } from './checks.js';
import { VOICE_CAPABILITY_OF, VOICE_CONFORMANCE_CASES, declareVoiceCases, type VoiceFixtures } from './voice-conformance.js';

/** The names of the conformance cases; use them as keys of `skip`. */
export const CONFORMANCE_CASES = [
  'manifest is well-formed',
  'valid settings are accepted',
  'settings that break the schema are refused',
  'an incompatible sdk range is refused',
  'send returns externalId, status, cost and segments',
  'findSent finds a message it sent by its addresses, body and time',
  'fetchStatus answers for a message it sent',
  'a provider 5xx is a retryable PROVIDER_ERROR',
  'a provider 429 is a retryable PROVIDER_ERROR',
  'a provider 4xx is a non-retryable PROVIDER_ERROR',
  'a missing signature is rejected',
  'a tampered body is rejected',
  'an expired signature is rejected',
  'a signed malformed payload is MALFORMED_PAYLOAD',
  'a signed valid request parses into events',
  'acknowledge returns a content type and a body',
  'health is ok against the provider',
  'health is not ok with wrong credentials',
  'estimateCost returns a non-negative number or null',
  'templates lists each with its id, name, language, status and variables',
  ...VOICE_CONFORMANCE_CASES,
] as const;

/** One conformance case name. */
export type ConformanceCase = (typeof CONFORMANCE_CASES)[number];

/** Signed webhook requests the suite feeds the driver; each call must produce a fresh request. */
export interface WebhookFixtures {
  /** A correctly signed request carrying a valid payload (e.g. an inbound message). */
  signed: () => Promise<WebhookRequest> | WebhookRequest;
  /** A correctly signed request whose body is not the provider's shape. */
  malformed: () => Promise<WebhookRequest> | WebhookRequest;
  /** A request whose body changed after signing; defaults to `signed()` with one body byte changed. */
  tampered?: () => Promise<WebhookRequest> | WebhookRequest;
  /** A request without a signature; defaults to `signed()` minus every header whose name contains `signature`. */
  unsigned?: () => Promise<WebhookRequest> | WebhookRequest;
  /** A request signed with a timestamp outside the provider's tolerance; required when the provider signs one. */
  expired?: () => Promise<WebhookRequest> | WebhookRequest;
  /** Further checks on the events `signed()` parses into, beyond their shape. */
  expectEvents?: (events: readonly InboundEvent[]) => void | Promise<void>;
}

/** What {@link describeDriverConformance} needs from a driver's test file. */
export interface DriverConformanceOptions<S = Record<string, unknown>> extends VoiceFixtures {
  /** The driver module (the package's default export). */
  module: DriverModule<S>;
  /** Valid settings pointing at the provider or its simulator; called after `before`. */
  settings: () => unknown;
  /** Settings that break the schema; each must be refused with DRIVER_SETTINGS_INVALID. */
  invalidSettings: readonly unknown[];
  /** Well-formed settings with wrong credentials; `health()` must then report `ok: false`. */
  wrongCredentials?: () => unknown;
  /** Title of the describe block; defaults to `<manifest.name> conformance`. */
  name?: string;
  /** Overrides for the context handed to `create` (a silent logger and a loopback base URL by default). */
  context?: Partial<DriverContext>;
  /** Starts what the cases need (a simulator, a provider stand-in); runs before the driver is created. */
  before?: () => unknown;
  /** Stops it; runs after the driver is closed. */
  after?: () => unknown;
  /** Messages the provider accepts; each is sent once, and the first is reused by the fault cases. */
  sends?: readonly OutboundMessage[] | (() => readonly OutboundMessage[]);
  /** An id in the provider's format that it never issued: `fetchStatus` must answer undefined for it. */
  unknownExternalId?: string;
  /** Makes the provider answer the driver's next request (a send, a synthesis, a stream's opening) with this HTTP status. */
  injectFault?: (status: number) => unknown;
  /** Removes injected faults; called after every fault case. */
  clearFaults?: () => unknown;
  webhooks?: WebhookFixtures;
  /** Known differences: case name → reason. The case is reported as skipped with that reason. */
  skip?: Readonly<Partial<Record<ConformanceCase, string>>>;
  /** Per-case timeout in milliseconds (default 15000). */
  timeoutMs?: number;
}

/** The driver capability each case exercises; a driver without it skips the case. `voice` is any of tts, stt, telephony. */
const CAPABILITY_OF: Partial<Record<ConformanceCase, 'send' | 'findSent' | 'fetchStatus' | 'fetchCall' | 'webhooks' | 'health' | 'estimateCost' | 'templates' | 'tts' | 'stt' | 'telephony' | 'voice' | 'recording'>> = {
  'send returns externalId, status, cost and segments': 'send',
  'findSent finds a message it sent by its addresses, body and time': 'findSent',
  'fetchStatus answers for a message it sent': 'fetchStatus',
  'a provider 5xx is a retryable PROVIDER_ERROR': 'send',
  'a provider 429 is a retryable PROVIDER_ERROR': 'send',
  'a provider 4xx is a non-retryable PROVIDER_ERROR': 'send',
  'a missing signature is rejected': 'webhooks',
  'a tampered body is rejected': 'webhooks',
  'an expired signature is rejected': 'webhooks',
  'a signed malformed payload is MALFORMED_PAYLOAD': 'webhooks',
  'a signed valid request parses into events': 'webhooks',
  'acknowledge returns a content type and a body': 'webhooks',
  'health is ok against the provider': 'health',
  'health is not ok with wrong credentials': 'health',
  'estimateCost returns a non-negative number or null': 'estimateCost',
  'templates lists each with its id, name, language, status and variables': 'templates',
  ...VOICE_CAPABILITY_OF,
};

const VOICE_CAPABILITIES = ['tts', 'stt', 'telephony'] as const;

const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Declares the conformance cases for one driver as a node:test `describe` block.
 * Cases for capabilities the driver lacks are skipped with that reason; a capability without
 * the fixture its case needs fails, naming the option to give or the skip to declare.
 */
export function describeDriverConformance<S>(options: DriverConformanceOptions<S>): void {
  const { module } = options;
  const skips: Partial<Record<string, string>> = { ...options.skip };
  for (const key of Object.keys(skips)) {
    if (!(CONFORMANCE_CASES as readonly string[]).includes(key)) {
      throw new Error(`skip names an unknown conformance case "${key}"; the cases are: ${CONFORMANCE_CASES.join('; ')}`);
    }
  }
  const title = options.name ?? `${module?.manifest?.name ?? 'driver'} conformance`;
  const timeout = options.timeoutMs ?? 15_000;
  const context: DriverContext = { logger: silentLogger, publicBaseUrl: 'http://127.0.0.1', ...options.context };

  describe(title, () => {
    let driver: Driver | undefined;

    before(async () => {
      await options.before?.();
      driver = await module.create(validateDriver(module, options.settings()), context);
    });
    after(async () => {
      try {
        await driver?.close?.();
      } finally {
        await options.after?.();
      }
    });

    const created = (): Driver => {
      assert.ok(driver, 'the driver was not created; see the failure of the before hook');
      return driver;
    };
    const need = <T>(value: T | undefined, option: string, name: ConformanceCase): T => {
      assert.ok(value !== undefined, `this case needs \`${option}\`; give it, or declare skip['${name}'] with the reason`);
      return value;
    };
    const sendsOf = (): readonly OutboundMessage[] => {
      const sends = typeof options.sends === 'function' ? options.sends() : options.sends;
      return sends ?? [];
    };
    // Capabilities are known only once the driver exists, so each case checks at run time.
    const lacks = (name: ConformanceCase): string | undefined => {
      const capability = CAPABILITY_OF[name];
      if (!driver || !capability) return undefined;
      if (capability === 'fetchCall') return !driver.telephony ? 'the driver has no telephony capability' : driver.telephony.fetchCall ? undefined : 'the driver has no telephony.fetchCall';
      if (capability === 'voice') return VOICE_CAPABILITIES.some((c) => driver![c] !== undefined) ? undefined : 'the driver has no voice capability (tts, stt or telephony)';
      if (capability === 'recording') return driver.telephony?.recording !== undefined ? undefined : 'the driver has no telephony.recording capability';
      return driver[capability] !== undefined ? undefined : `the driver has no ${capability} capability`;
    };
    const test = (name: ConformanceCase, body: (d: Driver) => Promise<void> | void): void => {
      const declared = skips[name];
      it(name, declared === undefined ? { timeout } : { skip: declared, timeout }, async (t) => {
        const reason = lacks(name);
        if (reason) return t.skip(reason);
        await body(created());
      });
    };

    it('manifest is well-formed', skipOf(skips, 'manifest is well-formed', timeout), () => {
      assertManifest(module.manifest);
      assert.equal(typeof module.create, 'function', 'the module must have a create function');
    });

    it('valid settings are accepted', skipOf(skips, 'valid settings are accepted', timeout), () => {
      const settings = validateDriver(module, options.settings());
      assert.ok(Object.isFrozen(settings), 'validateDriver must return frozen settings');
    });

    it('settings that break the schema are refused', skipOf(skips, 'settings that break the schema are refused', timeout), async () => {
      assert.ok(options.invalidSettings.length > 0, 'give at least one entry in invalidSettings');
      for (const [i, settings] of options.invalidSettings.entries()) {
        const err = await expectCode(() => validateDriver(module, settings), ErrorCodes.DRIVER_SETTINGS_INVALID).catch((e: Error) => {
          throw new Error(`invalidSettings[${i}] (${JSON.stringify(settings)}): ${e.message}`);
        });
        assert.ok(err.message.length > 0);
      }
    });

    it('an incompatible sdk range is refused', skipOf(skips, 'an incompatible sdk range is refused', timeout), async () => {
      for (const sdk of ['^99.0.0', '<0.0.1', 'not a range']) {
        const incompatible = { ...module, manifest: { ...module.manifest, sdk } };
        await expectCode(() => validateDriver(incompatible, options.settings()), ErrorCodes.DRIVER_INCOMPATIBLE);
      }
      await expectCode(() => validateDriver({ manifest: module.manifest } as DriverModule<S>, options.settings()), ErrorCodes.DRIVER_INCOMPATIBLE);
    });

    test('send returns externalId, status, cost and segments', async (d) => {
      const sends = sendsOf();
      assert.ok(sends.length > 0, "this case needs `sends`; give it, or declare skip['send returns externalId, status, cost and segments']");
      for (const message of sends) {
        const result = await d.send!(message);
        assertSendResult(result);
      }
    });

    test('findSent finds a message it sent by its addresses, body and time', async (d) => {
      const message = need(sendsOf()[0], 'sends', 'findSent finds a message it sent by its addresses, body and time');
      const since = new Date(Date.now() - 1000);
      const unique = { ...message, body: `${message.body} ${Date.now().toString(36)}` };
      const { externalId } = await d.send!(unique);
      const found = await d.findSent!(unique, since);
      assert.ok(
        found.some((r) => r.externalId === externalId),
        `findSent must find the message just sent (${externalId}); it found ${found.map((r) => r.externalId).join(', ') || 'none'}`,
      );
      for (const r of found) assertSendResult(r);
      const other = await d.findSent!({ ...unique, body: `${unique.body} (another)` }, since);
      assert.ok(!other.some((r) => r.externalId === externalId), 'findSent must not match a message with another body');
      const later = await d.findSent!(unique, new Date(Date.now() + 3_600_000));
      assert.ok(!later.some((r) => r.externalId === externalId), 'findSent must not match a message older than `since`');
    });

    test('fetchStatus answers for a message it sent', async (d) => {
      const message = need(sendsOf()[0], 'sends', 'fetchStatus answers for a message it sent');
      const sentAt = new Date();
      const { externalId } = await d.send!(message);
      const answer = await d.fetchStatus!({ channel: message.channel, externalId, from: message.from, to: message.to, sentAt });
      assert.ok(answer !== undefined, `fetchStatus must answer for the message just sent (${externalId})`);
      assertEvent(answer, module.manifest);
      assert.equal(answer.externalId, externalId, 'fetchStatus must answer about the message asked for');
      assert.equal(answer.channel, message.channel, "fetchStatus must answer on the message's channel");
      const unknownId = need(options.unknownExternalId, 'unknownExternalId', 'fetchStatus answers for a message it sent');
      const none = await d.fetchStatus!({ channel: message.channel, externalId: unknownId, from: message.from, to: message.to, sentAt });
      assert.equal(none, undefined, 'fetchStatus must answer undefined for an id the provider never issued');
    });

    const faultCase = (name: ConformanceCase, status: number, retryable: boolean): void =>
      test(name, async (d) => {
        const inject = need(options.injectFault, 'injectFault', name);
        const message = need(sendsOf()[0], 'sends', name);
        await inject(status);
        try {
          const err = await expectCode(() => d.send!(message), ErrorCodes.PROVIDER_ERROR);
          assert.equal(err.retryable, retryable, `an HTTP ${status} from the provider must give retryable: ${retryable}`);
        } finally {
          await options.clearFaults?.();
        }
      });
    faultCase('a provider 5xx is a retryable PROVIDER_ERROR', 503, true);
    faultCase('a provider 429 is a retryable PROVIDER_ERROR', 429, true);
    faultCase('a provider 4xx is a non-retryable PROVIDER_ERROR', 400, false);

    const rejects = (name: ConformanceCase, make: (f: WebhookFixtures) => Promise<WebhookRequest> | WebhookRequest | undefined, option: string): void =>
      test(name, async (d) => {
        const fixtures = need(options.webhooks, 'webhooks', name);
        const request = need(await make(fixtures), option, name);
        await expectCode(() => d.webhooks!.verify(request), ErrorCodes.SIGNATURE_INVALID);
      });
    rejects('a missing signature is rejected', async (f) => (f.unsigned ? f.unsigned() : stripSignature(await f.signed())), 'webhooks.unsigned');
    rejects('a tampered body is rejected', async (f) => (f.tampered ? f.tampered() : tamperBody(await f.signed())), 'webhooks.tampered');
    rejects('an expired signature is rejected', (f) => f.expired?.(), 'webhooks.expired');

    test('a signed malformed payload is MALFORMED_PAYLOAD', async (d) => {
      const request = await need(options.webhooks, 'webhooks', 'a signed malformed payload is MALFORMED_PAYLOAD').malformed();
      await d.webhooks!.verify(request);
      await expectCode(() => d.webhooks!.parse(request), ErrorCodes.MALFORMED_PAYLOAD);
    });

    test('a signed valid request parses into events', async (d) => {
      const fixtures = need(options.webhooks, 'webhooks', 'a signed valid request parses into events');
      const request = await fixtures.signed();
      await d.webhooks!.verify(request);
      const events = await d.webhooks!.parse(request);
      assert.ok(Array.isArray(events) && events.length > 0, 'a valid request must parse into at least one event');
      for (const event of events) assertEvent(event, module.manifest);
      await fixtures.expectEvents?.(events);
    });

    test('acknowledge returns a content type and a body', (d) => {
      for (const channel of module.manifest.channels) assertAck(d.webhooks!.acknowledge(channel));
    });

    test('health is ok against the provider', async (d) => {
      const result = await d.health!();
      assert.equal(result.ok, true, `health must be ok against the provider, got: ${result.message}`);
      assert.equal(typeof result.message, 'string');
    });

    const withWrongCredentials = async (name: ConformanceCase, use: (d: Driver) => Promise<void>): Promise<void> => {
      const settings = need(options.wrongCredentials, 'wrongCredentials', name)();
      const wrong = await module.create(validateDriver(module, settings), context);
      try {
        await use(wrong);
      } finally {
        await wrong.close?.();
      }
    };

    test('health is not ok with wrong credentials', () =>
      withWrongCredentials('health is not ok with wrong credentials', async (wrong) => {
        const result = await wrong.health!();
        assert.equal(result.ok, false, 'health must report ok: false with wrong credentials (resolve, do not throw)');
        assert.ok(typeof result.message === 'string' && result.message.length > 0, 'a failing health probe must say why');
      }),
    );

    test('estimateCost returns a non-negative number or null', (d) => {
      const message = need(sendsOf()[0], 'sends', 'estimateCost returns a non-negative number or null');
      for (const segments of [1, 3]) {
        const cost = d.estimateCost!(message, segments);
        if (cost === null) continue;
        assert.ok(typeof cost === 'number' && Number.isFinite(cost) && cost >= 0, `estimateCost must be a non-negative number or null, got ${String(cost)}`);
      }
    });

    test('templates lists each with its id, name, language, status and variables', async (d) => {
      const channel = d.manifest.channels.includes('whatsapp') ? 'whatsapp' : d.manifest.channels[0]!;
      const templates = await d.templates!.list(channel);
      assert.ok(Array.isArray(templates), 'templates.list must resolve to an array');
      for (const t of templates) {
        for (const key of ['id', 'name', 'language', 'status'] as const) assert.ok(typeof t[key] === 'string' && t[key].length > 0, `a template's ${key} must be a non-empty string, got ${JSON.stringify(t[key])}`);
        assert.equal(t.status, t.status.toLowerCase(), 'a template status is lower case (approved, pending, rejected…)');
        assert.ok(t.category === null || typeof t.category === 'string', 'category is a string or null');
        assert.ok(t.body === null || typeof t.body === 'string', 'body is a string or null');
        assert.ok(typeof t.variables === 'object' && t.variables !== null && Object.values(t.variables).every((v) => typeof v === 'string'), 'variables map names to strings');
      }
    });

    declareVoiceCases({
      fixtures: options,
      test,
      need,
      withWrongCredentials,
      ...(options.injectFault ? { injectFault: options.injectFault } : {}),
      ...(options.clearFaults ? { clearFaults: options.clearFaults } : {}),
    });
  });
}

function skipOf(skips: Partial<Record<string, string>>, name: ConformanceCase, timeout: number): { skip?: string; timeout: number } {
  const reason = skips[name];
  return reason === undefined ? { timeout } : { skip: reason, timeout };
}
