/**
 * PKCE (RFC 7636): a verifier of 43 to 128 unreserved characters drawn uniformly from the CSPRNG
 * (rejection sampling, no modulo bias), and its S256 challenge.
 * @module
 */

import { bytesToBase64url } from '../http/encode.ts';

const UNRESERVED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~';

/** A random string of `length` unreserved characters. Bytes ≥ 198 (3 × 66) are redrawn. */
export function generateVerifier(length = 43): string {
  if (!Number.isInteger(length) || length < 43 || length > 128)
    throw new RangeError(`Expected a length between 43 and 128. Received ${length}.`);
  let out = '';
  while (out.length < length) {
    for (const b of crypto.getRandomValues(new Uint8Array(length * 2)))
      if (b < 198 && out.length < length) out += UNRESERVED[b % 66];
  }
  return out;
}

/** BASE64URL(SHA-256(ASCII(verifier))) without padding. */
export async function generateChallenge(verifier: string): Promise<string> {
  return bytesToBase64url(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))),
  );
}

/** An unguessable state value: 32 random bytes, base64url (43 characters). */
export const generateState = () => bytesToBase64url(crypto.getRandomValues(new Uint8Array(32)));
