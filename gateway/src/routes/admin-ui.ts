import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';
import { assetsDir } from '@switchboard/admin-ui';
import { ErrorCodes } from '@switchboard/sdk';
import { fail } from '../http/errors.js';
import type { HttpResult, RouteContext, RouteDefinition } from '../http/types.js';

/** Everything comes from this origin; no inline script, no framing, no plug-ins. */
export const ADMIN_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json',
};

const PAGES: Record<string, string> = {
  '/admin': 'index.html',
  '/admin/setup': 'index.html',
  '/admin/dashboard': 'index.html',
  '/admin/agents/:agentId': 'index.html',
  '/admin/agents/:agentId/conversations': 'index.html',
  '/admin/agents/:agentId/conversations/:conversationId': 'index.html',
  '/admin/agents/:agentId/callbacks': 'index.html',
  '/admin/agents/:agentId/calls': 'index.html',
  '/admin/calls': 'index.html',
  '/admin/calls/:callId': 'index.html',
  '/admin/do-not-contact': 'index.html',
  '/admin/providers': 'index.html',
  '/admin/api-docs': 'api-docs.html',
};

/** The admin web UI's pages and assets, built by the admin-ui workspace and served from memory. */
export function adminUiRoutes(): RouteDefinition[] {
  const cache = new Map<string, Buffer>();
  const load = async (file: string): Promise<Buffer | undefined> => {
    const hit = cache.get(file);
    if (hit) return hit;
    try {
      const data = await readFile(join(assetsDir, file));
      cache.set(file, data);
      return data;
    } catch {
      return undefined;
    }
  };
  const send = (file: string, data: Buffer, immutable: boolean): HttpResult => ({
    status: 200,
    headers: {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'content-security-policy': ADMIN_CSP,
      'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    },
    body: data,
  });
  const common = { tag: 'Admin UI', auth: 'public' as const, hidden: true, responses: { 200: { description: 'HTML or asset.' } } };
  const pages: RouteDefinition[] = Object.entries(PAGES).map(([path, file]) => ({
    ...common,
    method: 'GET',
    path,
    operationId: `adminUi${file === 'index.html' ? 'App' : 'ApiDocs'}${path.replace(/[^A-Za-z]/g, '')}`,
    summary: 'Admin web UI page.',
    async handler() {
      const data = await load(file);
      if (!data) {
        return {
          status: 503,
          headers: { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '60' },
          body: 'The admin UI is not built; run npm run build.',
        };
      }
      return send(file, data, false);
    },
  }));
  const assets: RouteDefinition = {
    ...common,
    method: 'GET',
    path: '/admin/assets/*',
    operationId: 'adminUiassets',
    summary: 'Admin web UI asset.',
    async handler({ params }: RouteContext) {
      const name = normalize(params['*'] ?? '');
      if (!name || name.startsWith('.') || name.includes('/') || name.includes('\\')) fail(ErrorCodes.NOT_FOUND, 'No such asset.');
      const data = await load(`assets/${name}`);
      if (!data) fail(ErrorCodes.NOT_FOUND, 'No such asset.');
      return send(name, data, true);
    },
  };
  return [...pages, assets];
}
