import { describe, expect, it } from 'vitest';
import { type ProcessOptions, process as processWebhook } from './webhooks.ts';

const ALG = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
const pair = (await crypto.subtle.generateKey(
  { ...ALG, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) },
  false,
  ['sign', 'verify'],
)) as CryptoKeyPair;

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
async function sign(claims: unknown) {
  const input = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(claims)}`;
  const sig = await crypto.subtle.sign(ALG, pair.privateKey, new TextEncoder().encode(input));
  return `${input}.${Buffer.from(sig).toString('base64url')}`;
}
const now = () => Math.floor(Date.now() / 1000);
/** A cart_updated event whose `entityEventSequence` is `sequence`, with `times` as its token's. */
const cartUpdated = (sequence: unknown, times: object = { iat: now(), exp: now() + 60 }) => ({
  data: JSON.stringify({
    eventType: 'wix.ecom.v1.cart_updated',
    instanceId: 'site-1',
    data: JSON.stringify({
      id: 'evt-1',
      entityId: 'c-1',
      entityEventSequence: sequence,
      updatedEvent: { currentEntity: { id: 'c-1' } },
    }),
  }),
  ...times,
});

describe('webhooks.process options', () => {
  it('refuses a clock tolerance or maximum age that is not a number, rather than stop checking expiry', async () => {
    // As `Number(process.env.X)` gives them when X is unset, or the text of X itself.
    const expired = await sign(cartUpdated('1', { iat: now() - 9000, exp: now() - 7200 }));
    const old = await sign(cartUpdated('1', { iat: now() - 9000 }));
    const cases: [string, Partial<ProcessOptions>][] = [
      [expired, { clockToleranceSeconds: Number(undefined) }],
      [expired, { clockToleranceSeconds: '60' as unknown as number }],
      [old, { maxAgeSeconds: Number.NaN }],
      [old, { maxAgeSeconds: '3600' as unknown as number }],
    ];
    for (const [token, options] of cases) {
      let called = false;
      const e = await processWebhook(token, {
        publicKey: pair.publicKey,
        ...options,
        onCartUpdated: () => {
          called = true;
        },
      }).then(
        () => undefined,
        (err: Error) => err,
      );
      expect(called).toBe(false);
      expect(e).toBeInstanceOf(TypeError);
      const [name] = Object.keys(options);
      expect(e!.message).toBe(`webhooks.process: ${name} must be a number of seconds`);
    }
    // Numbers, the default included, still decide.
    await expect(processWebhook(expired, { publicKey: pair.publicKey })).rejects.toMatchObject({
      code: 'TOKEN_EXPIRED',
    });
    expect((await processWebhook(old, { publicKey: pair.publicKey, maxAgeSeconds: 86_400 })).id).toBe(
      'evt-1',
    );
  });
});

describe('webhooks.process sequence', () => {
  it('gives an event a sequence only when it is a number or the digits of one', async () => {
    const sequenceOf = async (s: unknown) =>
      (await processWebhook(await sign(cartUpdated(s)), { publicKey: pair.publicKey })).sequence;
    expect(await sequenceOf('12')).toBe(12);
    expect(await sequenceOf(12)).toBe(12);
    // None of these is a position: a receiver keeping the highest sequence per entity must not
    // take them for 0 or 1 (and drop the event as older than what it has).
    for (const s of [null, '', ' ', true, [], [5], 'x', {}]) expect(await sequenceOf(s)).toBeUndefined();
  });
});
