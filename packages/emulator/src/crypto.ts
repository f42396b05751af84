/**
 * Randomness and hashing. Tokens are 256-bit random values; only their SHA-256 is stored.
 * @module
 */
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

/** A new random token: 32 bytes, base64url (43 characters). */
export const newToken = (prefix = '') => prefix + randomBytes(32).toString('base64url');
/** The stored form of a token. */
export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
export const newId = () => randomUUID();
/** A value derived from the emulator's secret (stable across restarts on the same data). */
export const derive = (secret: Buffer, label: string) => createHmac('sha256', secret).update(label).digest();
/** A UUID-shaped id derived from the secret. */
export function deriveUuid(secret: Buffer, label: string) {
  const h = derive(secret, label).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
/** Constant-time string comparison. */
export function safeEqual(a: string, b: string) {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
