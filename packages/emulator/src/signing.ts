/**
 * The emulator's signing keys: RSA key pairs per database, generated on first use and kept in
 * `webhook_keys`, so receivers keep verifying across restarts. Webhook deliveries are RS256 JWTs
 * signed with the `default` key; OpenID Connect ID tokens with the `oidc` key (published at
 * `/oauth2/jwks`).
 * @module
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  sign,
} from 'node:crypto';
import type { Emulator } from './context.ts';

export interface SigningKey {
  /** Key id: the base64url SHA-256 of the public key's DER (also the JWT `kid`). */
  kid: string;
  publicPem: string;
  publicJwk: Record<string, unknown>;
  privateKey: KeyObject;
}

/** What a key signs: webhook deliveries (`default`) or ID tokens (`oidc`). */
export type KeyUse = 'default' | 'oidc';

const loaded = new WeakMap<Emulator, Map<KeyUse, Promise<SigningKey>>>();

/** One of the emulator's signing keys (created and stored once per database). */
export function signingKey(emu: Emulator, use: KeyUse = 'default'): Promise<SigningKey> {
  let keys = loaded.get(emu);
  if (!keys) {
    keys = new Map();
    loaded.set(emu, keys);
  }
  let key = keys.get(use);
  if (!key) {
    key = load(emu, use);
    key.catch(() => keys.delete(use));
    keys.set(use, key);
  }
  return key;
}

async function load(emu: Emulator, use: KeyUse): Promise<SigningKey> {
  const read = () =>
    emu.db.query<{ private_pem: string; public_pem: string }>(
      'SELECT private_pem, public_pem FROM webhook_keys WHERE id = $1',
      [use],
    );
  let rows = await read();
  if (!rows[0]) {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const privatePem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    const publicPem = pair.publicKey.export({ type: 'spki', format: 'pem' }) as string;
    // Two emulators starting on one database: the first insert wins, both read it back.
    await emu.db.query(
      'INSERT INTO webhook_keys (id, private_pem, public_pem) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING',
      [use, privatePem, publicPem],
    );
    rows = await read();
  }
  const { private_pem, public_pem } = rows[0]!;
  const pub = createPublicKey(public_pem);
  const kid = createHash('sha256')
    .update(pub.export({ type: 'spki', format: 'der' }))
    .digest('base64url');
  return {
    kid,
    publicPem: public_pem,
    publicJwk: { ...pub.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' },
    privateKey: createPrivateKey(private_pem),
  };
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Signs `claims` as a compact RS256 JWS. */
export function signJwt(key: SigningKey, claims: Record<string, unknown>): string {
  const input = `${b64url({ alg: 'RS256', typ: 'JWT', kid: key.kid })}.${b64url(claims)}`;
  return `${input}.${sign('sha256', Buffer.from(input), key.privateKey).toString('base64url')}`;
}
