// Writes docs/configuration.md from the settings schema: `npx tsx --conditions=switchboard-source scripts/configuration-doc.ts`.
// A test checks the file is current, so the reference cannot drift from the code.
import { writeFileSync } from 'node:fs';
import { SettingsSchema, SECRET_SETTINGS } from '@switchboard/runtime';

export function configurationDoc(): string {
  const rows = Object.entries(SettingsSchema.properties as Record<string, { default?: unknown; description?: string; anyOf?: { const: string }[] }>).map(
    ([key, schema]) => {
      const allowed = schema.anyOf ? schema.anyOf.map((s) => `\`${s.const}\``).join(', ') : '';
      const def = schema.default === '' || schema.default === undefined ? '(empty)' : `\`${String(schema.default)}\``;
      return `| \`${key}\` | ${def} | ${schema.description ?? ''}${allowed ? ` One of ${allowed}.` : ''}${SECRET_SETTINGS.has(key) ? ' *Secret: never logged or shown.*' : ''} |`;
    },
  );
  // Settings matched by a pattern (per-driver DRIVER_<NAME>_<KEY>) get one row each, named by the pattern's shape.
  const patterns = Object.values((SettingsSchema as { patternProperties?: Record<string, { description?: string }> }).patternProperties ?? {}).map(
    (schema) => `| \`DRIVER_<NAME>_<KEY>\` | (empty) | ${schema.description ?? ''} |`,
  );
  rows.push(...patterns);
  return `# Configuration

Settings come from the environment and from a settings file of \`KEY=value\` lines (\`./.env\` when present;
\`--settings <file>\` names another, which must exist). [\`.env.example\`](../.env.example) lists every key with its default.
The environment wins over the file, and command-line flags (\`--port\`, \`--host\`, \`--data-dir\`) win over both.
Every value is checked against one schema at start-up; a bad value or an unknown key in the env file stops the start
with a message that names the key. This page is generated from that schema (\`scripts/configuration-doc.ts\`).

| key | default | meaning |
|---|---|---|
${rows.join('\n')}
`;
}

if (process.argv[1]?.endsWith('configuration-doc.ts')) {
  writeFileSync(new URL('../docs/configuration.md', import.meta.url), configurationDoc());
  console.log('wrote docs/configuration.md');
}
