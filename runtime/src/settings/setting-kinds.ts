import { Type } from '@sinclair/typebox';

/** A comma-separated list, empty by default. */
export const csv = (description: string) => Type.String({ default: '', description });
/** A secret: never logged, never returned by the admin API (SECRET_SETTINGS reads the flag). */
export const secret = (description: string) => Type.String({ default: '', description, secret: true });
