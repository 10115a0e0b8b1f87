import type { Driver, HealthResult } from '@switchboard/sdk';
import { loadDriver, type Logger } from '@switchboard/runtime';
import { importPackage } from '../providers.js';

/** How long one credential test may take before it counts as unreachable. */
export const TEST_TIMEOUT_MS = 8000;

const SILENT = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Creates the provider's real driver with the candidate credentials and runs its health probe: one
 * cheap read-only call through the vendor SDK (the account, the domains list, the user). Credentials
 * go nowhere else; a refusal or a time-out is `{ok:false}` with what to fix, never a thrown error.
 */
export async function testCredentials(
  packageName: string,
  settings: Record<string, unknown>,
  options: { logger: Logger; timeoutMs?: number },
): Promise<HealthResult> {
  let driver;
  try {
    driver = await loadDriver({ packageName, settings }, importPackage, { logger: SILENT, publicBaseUrl: 'http://127.0.0.1' });
  } catch (err) {
    const code = (err as { code?: string }).code;
    return { ok: false, message: code === 'DRIVER_SETTINGS_INVALID' ? 'The credentials are not in the provider\u2019s format; copy them again from its console.' : 'The driver could not be loaded.' };
  }
  try {
    return await probeHealth(driver, options);
  } finally {
    await driver.close?.().catch(() => undefined);
  }
}

/**
 * Runs a loaded driver's health probe within the time limit (the configured providers' test on the
 * Providers page uses the drivers serving now): a refusal or a time-out is `{ok:false}`, never a throw.
 */
export async function probeHealth(driver: Driver, options: { logger: Logger; timeoutMs?: number }): Promise<HealthResult> {
  let timer: NodeJS.Timeout | undefined;
  const timeoutMs = options.timeoutMs ?? TEST_TIMEOUT_MS;
  try {
    const timeout = new Promise<HealthResult>((resolve) => {
      timer = setTimeout(() => resolve({ ok: false, message: `No answer within ${timeoutMs / 1000} s; check the network, a proxy or the provider's status page.` }), timeoutMs);
    });
    const probe = driver.health ? driver.health() : Promise.resolve({ ok: true, message: 'The driver has no live check.' });
    return await Promise.race([probe, timeout]);
  } catch (err) {
    options.logger.warn({ driver: driver.manifest.name, code: (err as { code?: string }).code }, 'credential test failed');
    return { ok: false, message: 'The provider could not be reached.' };
  } finally {
    clearTimeout(timer);
  }
}

/** Turns a driver's health message into one that says what to fix. */
export function withAdvice(result: HealthResult, console: string): HealthResult {
  if (result.ok) return result;
  if (/refused/.test(result.message)) return { ok: false, message: `${result.message} Copy the credentials again from ${console}.` };
  return result;
}
