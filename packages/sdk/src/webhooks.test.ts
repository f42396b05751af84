import { describe, expect, it, vi } from 'vitest';
import { importMinified } from '../test/minified.ts';
import { process as processWebhook, type WebhookError } from './webhooks.ts';

const ALG = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
const pair = (await crypto.subtle.generateKey(
  { ...ALG, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) },
  true,
  ['sign', 'verify'],
)) as CryptoKeyPair;
const other = (await crypto.subtle.generateKey(
  { ...ALG, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) },
  true,
  ['sign', 'verify'],
)) as CryptoKeyPair;
const spki = Buffer.from(await crypto.subtle.exportKey('spki', pair.publicKey)).toString('base64');
const pem = `-----BEGIN PUBLIC KEY-----\n${spki.replace(/.{64}/g, '$&\n')}\n-----END PUBLIC KEY-----\n`;
const jwk = await crypto.subtle.exportKey('jwk', pair.publicKey);

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
async function sign(claims: unknown, header: unknown = { alg: 'RS256', typ: 'JWT' }, key = pair.privateKey) {
  const input = `${b64(header)}.${b64(claims)}`;
  const sig = await crypto.subtle.sign(ALG, key, new TextEncoder().encode(input));
  return `${input}.${Buffer.from(sig).toString('base64url')}`;
}

const now = () => Math.floor(Date.now() / 1000);
/** The claims of one event: `data` (a domain event or a plain payload) in the envelope, with `beside` it. */
function claims(eventType: string, data: Record<string, unknown>, beside: Record<string, unknown> = {}) {
  return {
    data: JSON.stringify({ eventType, instanceId: 'site-1', data: JSON.stringify(data), ...beside }),
    iat: now(),
    exp: now() + 3600,
  };
}
const cartUpdated = claims('wix.ecom.v1.cart_updated', {
  id: 'evt-1',
  entityFqdn: 'wix.ecom.v1.cart',
  slug: 'updated',
  entityId: 'c-1',
  eventTime: '2025-01-02T03:04:05.000Z',
  entityEventSequence: '7',
  updatedEvent: {
    currentEntityAsJson: JSON.stringify({ id: 'c-1', buyerNote: 'Linen shirt' }),
    modifiedFields: ['buyerNote'],
  },
});
const CATALOG = 'com.wix.ecommerce.catalog.api.v1.';

async function rejection(p: Promise<unknown>) {
  const e = (await p.then(
    () => undefined,
    (err: unknown) => err,
  )) as WebhookError | undefined;
  if (!e) throw new Error('expected a rejection');
  return e;
}

describe('webhooks.process', () => {
  it('verifies the signature and calls the handler of the event type with the unwrapped event', async () => {
    const onCartUpdated = vi.fn();
    const onCartCreated = vi.fn();
    const event = await processWebhook(await sign(cartUpdated), {
      publicKey: pem,
      onCartUpdated,
      onCartCreated,
    });
    expect(onCartCreated).not.toHaveBeenCalled();
    expect(onCartUpdated).toHaveBeenCalledWith(event);
    expect(event).toEqual({
      id: 'evt-1',
      type: 'wix.ecom.v1.cart_updated',
      entityId: 'c-1',
      time: new Date('2025-01-02T03:04:05.000Z'),
      instanceId: 'site-1',
      sequence: 7,
      entity: { id: 'c-1', buyerNote: 'Linen shirt' },
      modifiedFields: ['buyerNote'],
    });
    // A sequence that is not a number is left out, not `NaN`.
    const odd = claims('wix.ecom.v1.cart_updated', {
      id: 'evt-2',
      entityFqdn: 'wix.ecom.v1.cart',
      slug: 'updated',
      entityId: 'c-1',
      entityEventSequence: 'seven',
      updatedEvent: { currentEntityAsJson: JSON.stringify({ id: 'c-1' }) },
    });
    const oddEvent = await processWebhook(await sign(odd), { publicKey: pem });
    expect(oddEvent.id).toBe('evt-2');
    expect('sequence' in oddEvent).toBe(false);
  });

  it("reads the catalog's plain events: the payload is the entity, the emulator's additions the metadata", async () => {
    const payload = {
      productId: 'p-1',
      changedFields: ['priceData', 'variants'],
      originatedFromVersion: 'V1_CATALOG',
    };
    const onProductChanged = vi.fn();
    const event = await processWebhook(
      await sign(
        claims(`${CATALOG}ProductChanged`, payload, {
          eventId: 'evt-9',
          entityId: 'p-1',
          eventTime: '2025-01-02T03:04:05.000Z',
          entityEventSequence: '12',
        }),
      ),
      { publicKey: pem, onProductChanged },
    );
    expect(onProductChanged).toHaveBeenCalledWith(event);
    expect(event).toEqual({
      id: 'evt-9',
      type: `${CATALOG}ProductChanged`,
      entityId: 'p-1',
      time: new Date('2025-01-02T03:04:05.000Z'),
      instanceId: 'site-1',
      sequence: 12,
      entity: payload,
      modifiedFields: ['priceData', 'variants'],
    });
  });

  it("reads the platform's own plain events, which carry no event id: the entity id from the payload, the time from iat", async () => {
    const token = claims(`${CATALOG}CollectionDeleted`, { collection_Id: 'col-1' });
    const onCollectionDeleted = vi.fn();
    const deleted = await processWebhook(await sign(token), { publicKey: pem, onCollectionDeleted });
    expect(onCollectionDeleted).toHaveBeenCalledWith(deleted);
    expect(deleted).toEqual({
      id: '',
      type: `${CATALOG}CollectionDeleted`,
      entityId: 'col-1',
      time: new Date(token.iat * 1000),
      instanceId: 'site-1',
      entity: { collection_Id: 'col-1' },
    });
    const variants = { productId: 'p-1', variants: [{ variantId: 'v-1', choices: { Size: 'L' } }] };
    const onProductVariantsChanged = vi.fn();
    const changed = await processWebhook(await sign(claims(`${CATALOG}VariantsChanged`, variants)), {
      publicKey: pem,
      onProductVariantsChanged,
    });
    expect(onProductVariantsChanged).toHaveBeenCalledWith(changed);
    expect(changed).toMatchObject({ entityId: 'p-1', entity: variants });
    expect(changed).not.toHaveProperty('modifiedFields');
  });

  it('gives every event a valid time: its eventTime, else iat, else when it arrived', async () => {
    const { iat, ...withExp } = claims(`${CATALOG}CollectionDeleted`, { collection_Id: 'col-1' });
    const timeOf = async (c: object) =>
      (await processWebhook(await sign(c), { publicKey: pem })).time.getTime();
    const before = Date.now();
    const arrived = await timeOf({ ...withExp, exp: now() + 60 });
    expect(arrived).toBeGreaterThanOrEqual(before);
    expect(arrived).toBeLessThanOrEqual(Date.now());
    // An eventTime that is not a date is no time either: iat stands in.
    const deleted = (beside: Record<string, unknown>) =>
      claims(`${CATALOG}CollectionDeleted`, { collection_Id: 'col-1' }, beside);
    expect(await timeOf(deleted({ eventTime: 'soon' }))).toBe(iat * 1000);
    const at = '2026-01-02T03:04:05.000Z';
    expect(await timeOf(deleted({ eventTime: at }))).toBe(Date.parse(at));
  });

  it("reads the platform's object forms: entities as objects, modifiedFields as previous values by path", async () => {
    const updated = await processWebhook(
      await sign(
        claims('wix.ecom.v1.cart_updated', {
          id: 'e',
          entityId: 'c',
          updatedEvent: {
            currentEntity: { id: 'c', buyerNote: 'hi', contactInfo: { address: { city: 'Oslo' } } },
            // Top-level fields, and nested paths as the platform may flatten them.
            modifiedFields: {
              buyerNote: null,
              'contactInfo.address.city': 'Bergen',
              'lineItems[0].quantity': 1,
            },
          },
        }),
      ),
      { publicKey: pem },
    );
    expect(updated.entity).toEqual({ id: 'c', buyerNote: 'hi', contactInfo: { address: { city: 'Oslo' } } });
    expect(updated.modifiedFields).toEqual(['buyerNote', 'contactInfo', 'lineItems']);
    // Both forms at once, as the emulator sends them: the JSON text is read.
    const both = await processWebhook(
      await sign(
        claims('wix.ecom.v1.cart_deleted', {
          id: 'e',
          entityId: 'c',
          deletedEvent: { deletedEntity: { id: 'c' }, deletedEntityAsJson: '{"id":"c"}' },
        }),
      ),
      { publicKey: pem },
    );
    expect(both.entity).toEqual({ id: 'c' });
  });

  it("reads a cart event's cart as the cart calls read it: dates, image references, the SDK's names", async () => {
    const wireCart = {
      id: 'c-1',
      createdDate: '2025-01-02T03:04:05.000Z',
      lineItems: [
        {
          id: 'l-1',
          image: {
            id: 'tea.png',
            url: 'https://static.example/tea.png',
            width: 800,
            height: 600,
            altText: 'Tea',
          },
          url: { relativePath: '/product-page/tea', url: 'https://shop.example/product-page/tea' },
          physicalProperties: { weight: 'NaN' },
        },
      ],
      contactInfo: { address: { addressLine: '1 Main St', city: 'Albany' } },
    };
    const onCartCreated = vi.fn();
    const event = await processWebhook(
      await sign(
        claims('wix.ecom.v1.cart_created', {
          id: 'evt-2',
          entityFqdn: 'wix.ecom.v1.cart',
          slug: 'created',
          entityId: 'c-1',
          createdEvent: { entityAsJson: JSON.stringify(wireCart) },
        }),
      ),
      { publicKey: pem, onCartCreated },
    );
    expect(onCartCreated).toHaveBeenCalledWith(event);
    expect(event.entity).toEqual({
      id: 'c-1',
      createdDate: new Date('2025-01-02T03:04:05.000Z'),
      lineItems: [
        {
          id: 'l-1',
          image: 'wix:image://v1/tea.png/Tea#originWidth=800&originHeight=600',
          url: 'https://shop.example/product-page/tea',
          physicalProperties: { weight: Number.NaN },
        },
      ],
      contactInfo: { address: { addressLine1: '1 Main St', city: 'Albany' } },
    });
  });

  it('hands checkouts, orders and identities to their own handlers, read as the calls read them', async () => {
    const created = (type: string, entity: unknown) =>
      claims(type, { id: 'evt-3', entityId: 'x-1', createdEvent: { entityAsJson: JSON.stringify(entity) } });
    const line = {
      id: 'l-1',
      image: { id: 'tea.png', width: 8, height: 6 },
      url: { url: 'https://s.example/p/tea' },
    };
    const onCheckoutCreated = vi.fn();
    const onOrderCreated = vi.fn();
    const onIdentityCreated = vi.fn();
    const onOther = vi.fn();
    const handlers = { publicKey: pem, onCheckoutCreated, onOrderCreated, onIdentityCreated, onOther };
    const checkout = await processWebhook(
      await sign(
        created('wix.ecom.v1.checkout_created', {
          id: 'x-1',
          lineItems: [line],
          shippingInfo: { shippingDestination: { address: { addressLine: '1 Main St' } } },
          createdDate: '2025-01-02T03:04:05.000Z',
        }),
      ),
      handlers,
    );
    expect(onCheckoutCreated).toHaveBeenCalledWith(checkout);
    expect(checkout.entity).toEqual({
      id: 'x-1',
      lineItems: [
        {
          id: 'l-1',
          image: 'wix:image://v1/tea.png#originWidth=8&originHeight=6',
          url: 'https://s.example/p/tea',
        },
      ],
      shippingInfo: { shippingDestination: { address: { addressLine1: '1 Main St' } } },
      createdDate: new Date('2025-01-02T03:04:05.000Z'),
    });
    const order = await processWebhook(
      await sign(
        created('wix.ecom.v1.order_created', {
          id: 'x-1',
          number: '7',
          lineItems: [line],
          billingInfo: { address: { addressLine: '1 Main St' } },
          recipientInfo: { address: { addressLine: '1 Main St' } },
          shippingInfo: {
            title: 'Standard',
            logistics: {
              shippingDestination: { address: { addressLine: '1 Main St' } },
              deliveryTimeSlot: { from: '2025-01-03T00:00:00.000Z' },
            },
          },
          activities: [{ type: 'ORDER_PLACED', createdDate: '2025-01-02T03:04:05.000Z' }],
        }),
      ),
      handlers,
    );
    expect(onOrderCreated).toHaveBeenCalledWith(order);
    const main = { address: { addressLine1: '1 Main St' } };
    expect(order.entity).toMatchObject({
      number: '7',
      lineItems: [{ image: 'wix:image://v1/tea.png#originWidth=8&originHeight=6' }],
      billingInfo: main,
      recipientInfo: main,
      shippingInfo: {
        logistics: {
          shippingDestination: main,
          deliveryTimeSlot: { from: new Date('2025-01-03T00:00:00.000Z') },
        },
      },
      activities: [{ createdDate: new Date('2025-01-02T03:04:05.000Z') }],
    });
    const identity = await processWebhook(
      await sign(
        created('wix.iam.v1.identity_created', {
          id: 'x-1',
          email: { address: 'ada@example.com', isVerified: false },
          createdDate: '2025-01-02T03:04:05.000Z',
        }),
      ),
      handlers,
    );
    expect(onIdentityCreated).toHaveBeenCalledWith(identity);
    expect(identity.entity).toMatchObject({ createdDate: new Date('2025-01-02T03:04:05.000Z') });
    expect(onOther).not.toHaveBeenCalled();
  });

  it('reads who caused the event from the envelope: JSON text as the platform sends it, or an object', async () => {
    const data = JSON.parse(cartUpdated.data).data;
    const member = { identityType: 'MEMBER', memberId: 'm-1' };
    const withText = claims('wix.ecom.v1.cart_updated', JSON.parse(data), {
      identity: JSON.stringify(member),
    });
    expect((await processWebhook(await sign(withText), { publicKey: pem })).identity).toEqual(member);
    const app = { identityType: 'APP', appId: 'app-1' };
    const withObject = claims('wix.ecom.v1.cart_updated', JSON.parse(data), { identity: app });
    expect((await processWebhook(await sign(withObject), { publicKey: pem })).identity).toEqual(app);
    expect(await processWebhook(await sign(cartUpdated), { publicKey: pem })).not.toHaveProperty('identity');
    for (const identity of ['{', '"MEMBER"', '{"memberId":"m-1"}']) {
      const bad = claims('wix.ecom.v1.cart_updated', JSON.parse(data), { identity });
      const e = await rejection(processWebhook(await sign(bad), { publicKey: pem }));
      expect(e.code).toBe('MALFORMED_EVENT');
      expect(e.message).toBe("The webhook event's identity is not JSON with an identityType");
    }
  });

  it('takes the public key as PEM, JWK or CryptoKey', async () => {
    const token = await sign(cartUpdated);
    for (const publicKey of [pem, jwk, pair.publicKey])
      expect((await processWebhook(token, { publicKey })).id).toBe('evt-1');
  });

  it('unwraps created, deleted and action events, and sends unknown types to onOther', async () => {
    const created = await processWebhook(
      await sign(
        claims('wix.ecom.v1.cart_created', {
          id: 'e',
          entityId: 'c',
          createdEvent: { entityAsJson: '{"id":"c"}' },
        }),
      ),
      { publicKey: pem },
    );
    expect(created.entity).toEqual({ id: 'c' });
    const deleted = await processWebhook(
      await sign(claims('wix.ecom.v1.cart_deleted', { id: 'e', entityId: 'c', deletedEvent: {} })),
      { publicKey: pem },
    );
    expect(deleted.entity).toEqual({});
    const onOther = vi.fn();
    const action = await processWebhook(
      await sign(
        claims('wix.example.v1.thing_happened', { id: 'e', entityId: 'x', actionEvent: { body: { n: 1 } } }),
      ),
      { publicKey: pem, onOther },
    );
    expect(action.entity).toEqual({ n: 1 });
    expect(onOther).toHaveBeenCalledWith(action);
  });

  it('rejects a tampered payload, a signature by another key and a stripped signature', async () => {
    const token = await sign(cartUpdated);
    const [h, p, s] = token.split('.');
    const forged = b64({ ...cartUpdated, data: cartUpdated.data.replace('Linen shirt', 'Free shirt') });
    const handler = vi.fn();
    for (const bad of [`${h}.${forged}.${s}`, await sign(cartUpdated, undefined, other.privateKey)]) {
      const e = await rejection(processWebhook(bad, { publicKey: pem, onCartUpdated: handler }));
      expect(e.code).toBe('INVALID_SIGNATURE');
      expect(e.message).toBe('The webhook signature does not match the public key');
    }
    expect((await rejection(processWebhook(`${h}.${p}.`, { publicKey: pem }))).code).toBe('MALFORMED_TOKEN');
    // A signature cut short, by one character or to a few: the signature is bad, not the key.
    for (const cut of [s!.slice(0, -1), s!.slice(0, -4), s!.slice(0, 5)]) {
      const e = await rejection(
        processWebhook(`${h}.${p}.${cut}`, { publicKey: pem, onCartUpdated: handler }),
      );
      expect(e.code, `${cut.length} characters`).toBe('INVALID_SIGNATURE');
    }
    expect(handler).not.toHaveBeenCalled();
  });

  it('takes the key as a PEM with its line breaks written \\n, or as a JWK in JSON text', async () => {
    const token = await sign(cartUpdated);
    for (const publicKey of [pem.replace(/\n/g, '\\n'), JSON.stringify(jwk), ` ${JSON.stringify(jwk)}\n`])
      expect((await processWebhook(token, { publicKey })).id).toBe('evt-1');
    const e = await rejection(processWebhook(token, { publicKey: '{"kty":"RSA"' }));
    expect(e.code).toBe('INVALID_KEY');
  });

  it('rejects other algorithms, including none and HS256 keyed with the public key', async () => {
    const token = await sign(cartUpdated);
    const [, p, s] = token.split('.');
    for (const alg of ['none', 'HS256', 'RS512', 'PS256']) {
      const e = await rejection(processWebhook(`${b64({ alg, typ: 'JWT' })}.${p}.${s}`, { publicKey: pem }));
      expect(e.code).toBe('UNSUPPORTED_ALGORITHM');
      expect(e.message).toBe(`The webhook token uses "${alg}"; only RS256 is accepted`);
    }
    const noAlg = await rejection(processWebhook(`${b64({ typ: 'JWT' })}.${p}.${s}`, { publicKey: pem }));
    expect(noAlg.message).toBe('The webhook token uses no algorithm; only RS256 is accepted');
  });

  it('rejects a token, signed right, that names critical header extensions (RFC 7515 crit)', async () => {
    const token = await sign(cartUpdated, { alg: 'RS256', typ: 'JWT', crit: ['exp-ext'], 'exp-ext': 1 });
    const e = await rejection(processWebhook(token, { publicKey: pem }));
    expect(e.code).toBe('MALFORMED_TOKEN');
    expect(e.message).toContain('crit');
  });

  it('rejects expired and not-yet-valid tokens, within a clock tolerance', async () => {
    const expired = await sign({ ...cartUpdated, exp: now() - 120 });
    expect((await rejection(processWebhook(expired, { publicKey: pem }))).code).toBe('TOKEN_EXPIRED');
    expect((await processWebhook(expired, { publicKey: pem, clockToleranceSeconds: 300 })).id).toBe('evt-1');
    const early = await sign({ ...cartUpdated, nbf: now() + 600 });
    expect((await rejection(processWebhook(early, { publicKey: pem }))).code).toBe('TOKEN_NOT_YET_VALID');
    // Without exp, iat plus the maximum age decides; with neither, the token is refused.
    const { exp: _exp, ...noExp } = cartUpdated;
    const old = await sign({ ...noExp, iat: now() - 7200 });
    expect((await rejection(processWebhook(old, { publicKey: pem }))).code).toBe('TOKEN_EXPIRED');
    expect((await processWebhook(old, { publicKey: pem, maxAgeSeconds: 86_400 })).id).toBe('evt-1');
    expect((await processWebhook(await sign(noExp), { publicKey: pem })).id).toBe('evt-1');
    const { iat: _iat, ...timeless } = noExp;
    expect((await rejection(processWebhook(await sign(timeless), { publicKey: pem }))).message).toBe(
      'The webhook token has neither an "exp" nor an "iat" claim',
    );
    // Without exp, an iat in the future (beyond the tolerance) is not valid yet: a year ahead, it
    // would have been taken for a year and an hour.
    const ahead = await sign({ ...noExp, iat: now() + 365 * 86_400 });
    expect((await rejection(processWebhook(ahead, { publicKey: pem }))).code).toBe('TOKEN_NOT_YET_VALID');
    expect((await processWebhook(await sign({ ...noExp, iat: now() + 30 }), { publicKey: pem })).id).toBe(
      'evt-1',
    );
    const skewed = await sign({ ...noExp, iat: now() + 600 });
    expect((await rejection(processWebhook(skewed, { publicKey: pem }))).code).toBe('TOKEN_NOT_YET_VALID');
    expect((await processWebhook(skewed, { publicKey: pem, clockToleranceSeconds: 900 })).id).toBe('evt-1');
    const odd = await sign({ ...cartUpdated, exp: 'tomorrow' });
    expect((await rejection(processWebhook(odd, { publicKey: pem }))).message).toBe(
      'The webhook token\'s "exp" claim is not a number',
    );
  });

  it('rejects malformed bodies and tokens without an event, with sentences that quote nothing secret', async () => {
    for (const body of ['', 'not a token', 'a.b', 'a.b.c.d', '{"eventType":"x"}', 42 as unknown as string]) {
      const e = await rejection(processWebhook(body, { publicKey: pem }));
      expect(['MALFORMED_TOKEN']).toContain(e.code);
      expect(e.name).toBe('WebhookError');
    }
    const notJson = `${b64('{')}.${b64('{}')}.${b64('x')}`;
    expect((await rejection(processWebhook(notJson, { publicKey: pem }))).code).toBe('MALFORMED_TOKEN');
    for (const c of [
      { iat: now() },
      { iat: now(), data: '{"eventType":"x"}' },
      { iat: now(), data: 'nope' },
    ]) {
      const e = await rejection(processWebhook(await sign(c), { publicKey: pem }));
      expect(e.code).toBe('MALFORMED_EVENT');
    }
  });

  it('rejects a key that is not an RSA public key', async () => {
    const token = await sign(cartUpdated);
    for (const publicKey of [
      'secret',
      '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----',
      { kty: 'oct', k: 'AAAA' },
    ]) {
      const e = await rejection(processWebhook(token, { publicKey }));
      expect(e.code).toBe('INVALID_KEY');
      expect(e.message).not.toContain('AAAA');
    }
  });

  it("passes a failing handler's error through, so the receiver answers an error and gets it again", async () => {
    const boom = new Error('database down');
    await expect(
      processWebhook(await sign(cartUpdated), {
        publicKey: pem,
        onCartUpdated: () => Promise.reject(boom),
      }),
    ).rejects.toBe(boom);
  });
});

it('keeps the WebhookError class name in a minified bundle', async () => {
  const m = await importMinified(new URL('./webhooks.ts', import.meta.url));
  expect(new m.WebhookError('m', { code: 'C' }).name).toBe('WebhookError');
});
