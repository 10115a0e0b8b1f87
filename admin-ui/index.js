import { fileURLToPath } from 'node:url';

/** Absolute path of the folder holding the admin UI's static pages and assets. */
export const assetsDir = fileURLToPath(new URL('./dist/', import.meta.url));
