import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { makePrivateDir } from './data-dir.js';

/**
 * Seals secrets that must be readable again (the team token, callback signing secrets) with
 * AES-256-GCM under the store key. Sealed form: `v1.<iv>.<tag>.<ciphertext>`, base64url parts.
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'SECRET_KEY must be 32 bytes, base64 or hex encoded.');
    this.#key = key;
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || data === undefined) throw new SwitchboardError(ErrorCodes.INTERNAL, 'A sealed secret is corrupt.');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }

  /**
   * HMAC-SHA256 of `data` under a key derived from the store key for `purpose` alone, so a code made
   * for one purpose (an unsubscribe link) proves nothing for another and never uses the sealing key.
   */
  mac(purpose: string, data: string): Buffer {
    const key = createHmac('sha256', this.#key).update(`switchboard/${purpose}`).digest();
    return createHmac('sha256', key).update(data).digest();
  }
}

/** The store key: SECRET_KEY when set, else `secret.key` under the data dir, created at first start. */
export function loadSecretKey(dataDir: string, configured: string): Buffer {
  if (configured) return decodeKey(configured);
  const path = join(dataDir, 'secret.key');
  if (existsSync(path)) return decodeKey(readFileSync(path, 'utf8').trim());
  makePrivateDir(dataDir);
  const key = randomBytes(32);
  writeFileSync(path, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  return key;
}

/** The store key in force for these settings, without creating one: undefined when none exists yet. */
export function readSecretKey(dataDir: string, configured: string): Buffer | undefined {
  if (configured) return decodeKey(configured);
  const path = join(dataDir, 'secret.key');
  return existsSync(path) ? decodeKey(readFileSync(path, 'utf8').trim()) : undefined;
}

function decodeKey(text: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'SECRET_KEY must be 32 bytes, base64 or hex encoded.');
  return key;
}

/** SHA-256 of a high-entropy token, hex. Tokens are random 256-bit values, so a fast hash suffices. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A new random token with a readable kind prefix. */
export function newToken(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}
