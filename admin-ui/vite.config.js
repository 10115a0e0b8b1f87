import { defineConfig } from 'vite';

// Two pages: the app (setup wizard, dashboard, agent detail) and the API explorer; they share
// the sign-in and header chunk. Built into dist/, which the gateway serves under /admin/; nothing
// is loaded from a CDN.
export default defineConfig({
  base: '/admin/',
  publicDir: false,
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    rollupOptions: { input: { index: 'index.html', 'api-docs': 'api-docs.html' } },
  },
});
