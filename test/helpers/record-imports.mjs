// A preload (`node --import ./record-imports.mjs`) that appends every module URL the process resolves
// to the file named by SWITCHBOARD_IMPORT_LOG, so a test can tell what a command loaded.
import { register } from 'node:module';

register(new URL('./record-imports-hooks.mjs', import.meta.url), { data: { log: process.env.SWITCHBOARD_IMPORT_LOG } });
