import { readFileSync } from 'node:fs';

/** This package's version, read from its package.json (found from src/ and from dist/ alike). */
export const VERSION: string = (() => {
  for (const path of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === '@switchboard/gateway' && pkg.version) return pkg.version;
    } catch {
      // try the next candidate
    }
  }
  return '0.0.0';
})();
