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
  if (options.envFile && existsSync(options.envFile)) {
    const parsed = parseEnv(readFileSync(options.envFile, 'utf8'));
    for (const [key, value] of Object.entries(parsed)) {
      if (!isSettingKey(key)) {
        throw new SwitchboardError(
          ErrorCodes.VALIDATION_FAILED,
          `Unknown setting ${key} in ${options.envFile}; known settings are listed in docs/configuration.md.`,
        );
      }
      raw[key] = value;
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
  return Object.freeze(checkSettings(raw));
}

/** Validates a settings record, applying defaults; throws a coded error naming the first bad key. */
export function checkSettings(raw: Record<string, unknown>): Settings {
  const copy = { ...raw };
  if (validate(copy)) {
    // The schema bounds the length; how guessable a token is takes code.
    const weakness = copy.ORCHESTRATOR_TOKEN ? tokenWeakness(copy.ORCHESTRATOR_TOKEN) : undefined;
    if (!weakness) return copy;
    const message = `${weakness}. Leave it empty to have one generated, or use e.g. \`openssl rand -hex 32\``;
    throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `Setting ORCHESTRATOR_TOKEN ${message}.`, { details: [{ key: 'ORCHESTRATOR_TOKEN', message }] });
  }
  const details = (validate.errors ?? []).map((e) => {
    const key = e.instancePath.replace(/^\//, '') || String((e.params as { additionalProperty?: string }).additionalProperty ?? '');
    return { key, message: describe(key, e.message ?? 'is invalid') };
  });
  const first = details[0]!;
  throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, `Setting ${first.key} ${first.message}.`, { details });
}

function describe(key: string, message: string): string {
  const schema = (SettingsSchema.properties as Record<string, { anyOf?: { const: string }[]; description?: string }>)[key];
  if (!schema) return 'is not a known setting';
  if (schema.anyOf) return `must be one of ${schema.anyOf.map((s) => s.const).join(', ')}`;
  return `${message} (${schema.description ?? 'see docs/configuration.md'})`;
}
