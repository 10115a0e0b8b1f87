import { createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';

/** A Telnyx account's webhook key pair: the public key as the portal shows it, the private half kept by the simulator. */
export interface TelnyxKeyPair {
  /** Base64 of the raw 32-byte Ed25519 public key (what Telnyx's portal lists and its SDK verifies with). */
  publicKey: string;
  /** Base64 of the PKCS#8 DER private key; only the simulator signs with it. */
  signingKey: string;
}

/** A fresh Ed25519 key pair in the formats above. */
export function telnyxKeyPair(): TelnyxKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { publicKey: rawPublicKey(publicKey.export({ format: 'der', type: 'spki' })), signingKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64') };
}

/** The public half of a signing key, as {@link TelnyxKeyPair.publicKey}. */
export function publicKeyOf(signingKey: string): string {
  const key = createPublicKey(createPrivateKey({ key: Buffer.from(signingKey, 'base64'), format: 'der', type: 'pkcs8' }));
  return rawPublicKey(key.export({ format: 'der', type: 'spki' }));
}

/** An SPKI DER Ed25519 key ends with the 32 raw key bytes. */
function rawPublicKey(spki: Buffer): string {
  return spki.subarray(spki.length - 32).toString('base64');
}

/**
 * Telnyx's webhook signature: Ed25519 over `${timestamp}|${body}` (the timestamp in Unix seconds,
 * sent as `telnyx-timestamp`), base64 in `telnyx-signature-ed25519`.
 */
export function telnyxSignature(signingKey: string, timestamp: string, body: string): string {
  const key = createPrivateKey({ key: Buffer.from(signingKey, 'base64'), format: 'der', type: 'pkcs8' });
  return sign(null, Buffer.from(`${timestamp}|${body}`, 'utf8'), key).toString('base64');
}
