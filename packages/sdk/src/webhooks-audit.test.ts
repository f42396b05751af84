import { describe, expect, it } from 'vitest';
import { process as processWebhook, type WebhookError } from './webhooks.ts';

const ALG = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
const pair = (await crypto.subtle.generateKey(
  { ...ALG, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) },
  true,
  ['sign', 'verify'],
)) as CryptoKeyPair;
const jwk = await crypto.subtle.exportKey('jwk', pair.publicKey);

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
async function sign(claims: unknown) {
  const input = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(claims)}`;
  const sig = await crypto.subtle.sign(ALG, pair.privateKey, new TextEncoder().encode(input));
  return `${input}.${Buffer.from(sig).toString('base64url')}`;
}
const now = () => Math.floor(Date.now() / 1000);
const data = JSON.stringify({
  eventType: 'wix.ecom.v1.cart_deleted',
  instanceId: 'site-1',
  data: JSON.stringify({
    id: 'evt-1',
    entityId: 'c-1',
    deletedEvent: { deletedEntityAsJson: '{"id":"c-1"}' },
  }),
});

async function rejection(p: Promise<unknown>) {
  const e = (await p.then(
    () => undefined,
    (err: unknown) => err,
  )) as WebhookError | undefined;
  if (!e) throw new Error('expected a rejection');
  return e;
}

describe('webhooks.process: lifetime of a token without exp', () => {
  it('refuses one issued in the future beyond the tolerance: its iat would stretch the maximum age', async () => {
    // Issued a year ahead: without this check it would be accepted for a year and an hour.
    const ahead = await sign({ data, iat: now() + 365 * 86_400 });
    const e = await rejection(processWebhook(ahead, { publicKey: jwk }));
    expect(e.code).toBe('TOKEN_NOT_YET_VALID');
    expect(e.name).toBe('WebhookError');
    // Within the clock tolerance (60 s by default, or as given), it is taken.
    expect((await processWebhook(await sign({ data, iat: now() + 30 }), { publicKey: jwk })).id).toBe(
      'evt-1',
    );
    const skewed = await sign({ data, iat: now() + 600 });
    expect((await rejection(processWebhook(skewed, { publicKey: jwk }))).code).toBe('TOKEN_NOT_YET_VALID');
    expect((await processWebhook(skewed, { publicKey: jwk, clockToleranceSeconds: 900 })).id).toBe('evt-1');
  });
});
