// Writes .env.example from the settings schema: `node --conditions=switchboard-source --import tsx scripts/env-example.ts`.
// A test checks the file is current, so the example cannot drift from the code.
import { writeFileSync } from 'node:fs';
import { SettingsSchema, SECRET_SETTINGS } from '@switchboard/runtime';

type SettingSchema = { default?: unknown; description?: string; anyOf?: { const: string }[] };

/** Wraps a sentence into `# `-prefixed comment lines of at most ~100 characters. */
function comment(text: string): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(/\s+/)) {
    if (line.length + word.length + 1 > 100 && line !== '#') {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines;
}

export function envExample(): string {
  const blocks = Object.entries(SettingsSchema.properties as Record<string, SettingSchema>).map(([key, schema]) => {
    const notes = [schema.description ?? ''];
    if (schema.anyOf) notes.push(`One of: ${schema.anyOf.map((s) => s.const).join(', ')}.`);
    if (SECRET_SETTINGS.has(key)) notes.push('Secret: never logged or shown.');
    const value = schema.default === undefined ? '' : String(schema.default);
    return [...comment(notes.join(' ')), `# ${key}=${value}`].join('\n');
  });
  return `# Switchboard settings: every key, with its default, commented out.
# Copy this file to .env (read by default; --settings <file> reads another) and uncomment what you change.
# The environment wins over the file; --port, --host and --data-dir win over both.
# Generated from the settings schema by scripts/env-example.ts; docs/configuration.md has the same keys.

${blocks.join('\n\n')}
`;
}

if (process.argv[1]?.endsWith('env-example.ts')) {
  writeFileSync(new URL('../.env.example', import.meta.url), envExample());
  console.log('wrote .env.example');
}
