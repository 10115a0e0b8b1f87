import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { Ajv } from 'ajv';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { SettingsSchema, isSettingKey, type Settings } from './schema.js';
import { tokenWeakness } from './token-strength.js';

const ajv = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: true, strict: false });
const validate = ajv.compile<Settings>(SettingsSchema);

export interface LoadSettingsOptions {
  /** Path of the env file; missing is fine unless `requireEnvFile`. */
  envFile?: string;
  requireEnvFile?: boolean;
  /** Usually process.env; only known keys are read from it. */
  env?: Record<string, string | undefined>;
  /** Highest precedence (CLI flags). */
  overrides?: Partial<Record<string, string | number>>;
}

/**
 * Reads settings from the env file, then the environment, then overrides; validates them against
 * the one schema and freezes the result. An unknown key in the env file or a bad value throws a
 * VALIDATION_FAILED error naming the key and what is allowed.
 */
export function loadSettings(options: LoadSettingsOptions = {}): Settings {
  const raw: Record<string, unknown> = {};
  const unknown: SettingProblem[] = [];
  if (options.envFile && existsSync(options.envFile)) {
    const parsed = parseEnv(readFileSync(options.envFile, 'utf8'));
    for (const [key, value] of Object.entries(parsed)) {
      if (isSettingKey(key)) raw[key] = value;
      else unknown.push({ key, message: `is not a known setting (in ${options.envFile}; known settings are listed in docs/configuration.md)` });
    }
  } else if (options.requireEnvFile) {
    throw new SwitchboardError(
      ErrorCodes.VALIDATION_FAILED,
      `Settings file ${options.envFile} does not exist. Create it (.env.example lists every setting), or leave the option out to use ./.env when present.`,
    );
  }
  const env = options.env ?? {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && isSettingKey(key)) raw[key] = value;
  }
  for (const [key, value] of Object.entries(options.overrides ?? {})) {
    if (value !== undefined) raw[key] = value;
  }
  return Object.freeze(checkSettings(raw, unknown));
}

/** One bad setting: its key and what is wrong with it. */
interface SettingProblem {
  key: string;
  message: string;
}

/**
 * Validates a settings record, applying defaults; throws one coded error naming every bad key (the
 * `problems` found before, such as unknown keys, first), so a start is fixed in one edit, not one per key.
 */
export function checkSettings(raw: Record<string, unknown>, problems: readonly SettingProblem[] = []): Settings {
  const copy = { ...raw };
  const valid = validate(copy);
  const found = new Map(problems.map((p) => [p.key, p]));
  for (const e of valid ? [] : (validate.errors ?? [])) {
    const key = e.instancePath.replace(/^\//, '') || String((e.params as { additionalProperty?: string }).additionalProperty ?? '');
    // A union reports each branch it tried; the first error of a key says enough.
    if (!found.has(key)) found.set(key, { key, message: describe(key, e.message ?? 'is invalid') });
  }
  // The schema bounds the token's length; how guessable it is takes code.
  const weakness = typeof copy.ORCHESTRATOR_TOKEN === 'string' && copy.ORCHESTRATOR_TOKEN !== '' ? tokenWeakness(copy.ORCHESTRATOR_TOKEN) : undefined;
  if (weakness && !found.has('ORCHESTRATOR_TOKEN')) {
    found.set('ORCHESTRATOR_TOKEN', { key: 'ORCHESTRATOR_TOKEN', message: `${weakness}. Leave it empty to have one generated, or use e.g. \`openssl rand -hex 32\`` });
  }
  if (found.size === 0) return copy as Settings;
  const details = [...found.values()];
  const message =
    details.length === 1
      ? `Setting ${details[0]!.key} ${details[0]!.message}.`
      : `${details.length} settings are not valid:\n${details.map((d) => `  - ${d.key} ${d.message}`).join('\n')}`;
  throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, message, { details });
}

function describe(key: string, message: string): string {
  const schema = (SettingsSchema.properties as Record<string, { anyOf?: { const: string }[]; description?: string }>)[key];
  if (!schema) return 'is not a known setting';
  if (schema.anyOf) return `must be one of ${schema.anyOf.map((s) => s.const).join(', ')}`;
  // The description is a sentence of its own; inside the parentheses it loses its full stop.
  return `${message} (${(schema.description ?? 'see docs/configuration.md').replace(/\.$/, '')})`;
}
