/**
 * Rules of identity and access that hold across calls, over raw HTTP: a blocked (or deleted)
 * member loses their tokens and cannot refresh; `wix-site-id` must name the caller's site; a
 * visitor cart merged at login keeps the cart's limits; CORS honours the OAuth clients' own
 * origins; validate-email (wire §5.5); an app token names its instance in token-info (wire §6).
 */
import { STORES_APP_ID } from '@shopkit/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoProductId } from '../src/domains/catalog/seed.ts';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls, visitorToken } from './http.ts';

const CONFIGURED = 'http://config.test';

describe.each(testBackends())('identity rules (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend, { allowedOrigins: [CONFIGURED] });
  });
  afterAll(() => emu?.stop());

  const { call, owner } = jsonCalls(() => emu);
  const token = (body: object, headers: Record<string, string> = {}) =>
    call('POST', '/oauth2/token', body, headers);
  const tokenInfo = async (t: string) => (await call('POST', '/oauth2/token-info', { token: t })).body;
  const visitor = () => visitorToken(emu);

  let n = 0;
  const newEmail = () => `rules${++n}-${backend}@example.test`;
  const PASSWORD = 'correct horse battery';

  /** Registers a member (password login works) and returns its id and e-mail. */
  const register = async () => {
    const email = newEmail();
    const res = await call('POST', '/_api/iam/authentication/v2/register', {
      loginId: { email },
      password: PASSWORD,
    });
    expect(res.status).toBe(200);
    return { id: res.body.identity.id as string, email };
  };
  /** Member tokens for `memberId`, logged in from `visitorToken` (the authorized_client grant). */
  const memberTokens = async (memberId: string, visitorToken?: string) => {
    const res = await token(
      { grant_type: 'authorized_client', scope: 'offline_access', member_id: memberId },
      { authorization: `${visitorToken ?? (await visitor())},${emu.demo.apiKey}` },
    );
    expect(res.status).toBe(200);
    return { access: res.body.access_token as string, refresh: res.body.refresh_token as string };
  };
  /** A member-only call (starting an e-mail verification for oneself). */
  const memberCall = (access: string) =>
    call('POST', '/_api/iam/verification/v1/start', {}, { authorization: access });
  const refresh = (refreshToken: string) =>
    token({ clientId: emu.demo.clientId, grantType: 'refresh_token', refreshToken });

  describe('a blocked or deleted member keeps no access', () => {
    it('blocking revokes access and refresh tokens; login, refresh and token-info all say so', async () => {
      const m = await register();
      const t = await memberTokens(m.id);
      expect((await memberCall(t.access)).status).toBe(200);
      expect((await tokenInfo(t.access)).active).toBe(true);

      const blocked = await owner('POST', `/_api/emulator/v1/members/${m.id}/block`);
      expect(blocked.status).toBe(200);
      expect(blocked.body.identity.status.name).toBe('BLOCKED');

      const used = await memberCall(t.access);
      expect(used.status).toBe(401);
      expect(used.body.details.applicationError.code).toBe('UNAUTHENTICATED');
      expect(await tokenInfo(t.access)).toEqual({ active: false, subjectType: 'UNKNOWN' });
      const renewed = await refresh(t.refresh);
      expect(renewed.status).toBe(400);
      expect(renewed.body.details.applicationError.code).toBe('invalid_grant');
      expect(renewed.body.access_token).toBeUndefined();
      const login = await call('POST', '/_api/iam/authentication/v2/login', {
        loginId: { email: m.email },
        password: PASSWORD,
      });
      expect(login.status).toBe(403);
      expect(login.body.details.applicationError.code).toBe('MEMBER_BLOCKED');
      // No new tokens by any other grant either.
      const again = await token(
        { grant_type: 'authorized_client', member_id: m.id },
        { authorization: `${await visitor()},${emu.demo.apiKey}` },
      );
      expect(again.status).toBe(400);
      expect(again.body.details.applicationError.code).toBe('invalid_grant');
    });

    it('the refresh grant refuses a member who is no longer ACTIVE (deleted), and ends the family', async () => {
      const m = await register();
      const t = await memberTokens(m.id);
      // The emulator has no deletion endpoint: the status is set as a deletion would set it, with
      // no revocation, so that only the grant's own check stands between the token and new tokens.
      await emu.emu.db.query("UPDATE members SET status = 'DELETED' WHERE id = $1", [m.id]);
      const renewed = await refresh(t.refresh);
      expect(renewed.status).toBe(400);
      expect(renewed.body.details.applicationError.code).toBe('invalid_grant');
      expect(renewed.body.access_token).toBeUndefined();
      // The family ended with the refusal: its access token is gone too.
      expect((await tokenInfo(t.access)).active).toBe(false);
    });

    it('an ACTIVE member still refreshes, and blocking another member leaves them alone', async () => {
      const kept = await register();
      const other = await register();
      const t = await memberTokens(kept.id);
      expect((await owner('POST', `/_api/emulator/v1/members/${other.id}/block`)).status).toBe(200);
      const renewed = await refresh(t.refresh);
      expect(renewed.status).toBe(200);
      expect((await memberCall(renewed.body.access_token)).status).toBe(200);
    });
  });

  describe('wix-site-id names the site a call acts on', () => {
    const collection = (name: string, headers: Record<string, string>) =>
      owner('POST', '/stores/v1/collections', { collection: { name } }, headers);
    const named = async (name: string) =>
      (await owner('POST', '/v2/collections/query', { query: { filter: { name } } })).body.collections;

    it('an API key with another site in wix-site-id is refused (403, envelope) and writes nothing', async () => {
      const res = await collection('Refused elsewhere', { 'wix-site-id': 'not-my-site' });
      expect(res.status).toBe(403);
      expect(res.headers.get('x-wix-request-id')).toBeTruthy();
      expect(res.body.details.applicationError.code).toBe('PERMISSION_DENIED');
      expect(res.body.message).toMatch(/API key does not belong to the site in the wix-site-id header/);
      expect(await named('Refused elsewhere')).toEqual([]);
      // A read is refused the same way.
      const read = await owner('GET', '/_api/emulator/v1/settings', undefined, {
        'wix-site-id': 'not-my-site',
      });
      expect(read.status).toBe(403);
    });

    it('its own site id, an empty header or none at all work as before', async () => {
      expect((await collection('Mine by header', { 'wix-site-id': emu.demo.siteId })).status).toBe(200);
      expect((await collection('Mine, empty header', { 'wix-site-id': '' })).status).toBe(200);
      expect((await collection('Mine, no header', {})).status).toBe(200);
      expect(await named('Mine by header')).toHaveLength(1);
    });

    it('a visitor token with another site in wix-site-id is refused too', async () => {
      const res = await call('GET', '/ecom/v1/carts/current', undefined, {
        authorization: await visitor(),
        'wix-site-id': 'not-my-site',
      });
      expect(res.status).toBe(403);
      expect(res.body.details.applicationError.code).toBe('PERMISSION_DENIED');
    });
  });

  describe('a visitor cart merged into a member cart keeps the cart limits', () => {
    const CART = '/ecom/v1/carts/current';
    const candle = (quantity: number) => ({
      catalogReference: { appId: STORES_APP_ID, catalogItemId: demoProductId('beeswax-candle') },
      quantity,
    });
    const custom = (id: string) => ({ id, quantity: 1, price: '1.00', productName: { original: id } });
    const add = (authorization: string, body: object) =>
      call('POST', `${CART}/add-to-cart`, body, { authorization });

    it('equal items add up to at most 9999, the most a direct call allows', async () => {
      const m = await register();
      const first = await memberTokens(m.id);
      expect((await add(first.access, { lineItems: [candle(9999)] })).status).toBe(200);
      const v = await visitor();
      expect((await add(v, { lineItems: [candle(9999)] })).status).toBe(200);

      const merged = await memberTokens(m.id, v);
      const cart = await call('GET', CART, undefined, { authorization: merged.access });
      expect(cart.status).toBe(200);
      expect(cart.body.cart.lineItems).toHaveLength(1);
      expect(cart.body.cart.lineItems[0].quantity).toBe(9999);
      // The visitor cart is gone, and a direct call still refuses to go beyond the limit.
      expect((await call('GET', CART, undefined, { authorization: v })).status).toBe(404);
      const more = await add(merged.access, { lineItems: [candle(1)] });
      expect(more.status).toBe(400);
      expect(more.body.details.validationError.fieldViolations[0].data).toEqual({ max: 9999 });
    });

    it('at most 300 lines survive: the member’s first, then the visitor’s in their order', async () => {
      const m = await register();
      const first = await memberTokens(m.id);
      const mine = Array.from({ length: 200 }, (_, i) => `m${i}`);
      const theirs = Array.from({ length: 200 }, (_, i) => `v${i}`);
      const elevated = (t: string) => `${t},${emu.demo.apiKey}`;
      expect((await add(elevated(first.access), { customLineItems: mine.map(custom) })).status).toBe(200);
      const v = await visitor();
      expect((await add(elevated(v), { customLineItems: theirs.map(custom) })).status).toBe(200);

      const merged = await memberTokens(m.id, v);
      const cart = await call('GET', CART, undefined, { authorization: merged.access });
      expect(cart.status).toBe(200);
      const ids = cart.body.cart.lineItems.map((l: { id: string }) => l.id);
      expect(ids).toEqual([...mine, ...theirs.slice(0, 100)]);
      // Full: a direct call cannot add a line to it.
      const more = await add(elevated(merged.access), { customLineItems: [custom('one-more')] });
      expect(more.status).toBe(400);
      expect(more.body.details.validationError.fieldViolations[0].data).toEqual({ max: 300 });
    });
  });

  describe('a visitor cart merged into a member cart keeps what the merchant gave it, and its events', () => {
    const CART = '/ecom/v1/carts/current';
    const candle = {
      catalogReference: { appId: STORES_APP_ID, catalogItemId: demoProductId('beeswax-candle') },
      quantity: 1,
    };
    const elevated = (t: string) => ({ authorization: `${t},${emu.demo.apiKey}` });

    it("a merchant discount on a visitor's line follows it into the member's line of the same item", async () => {
      const m = await register();
      const first = await memberTokens(m.id);
      const mine = await call(
        'POST',
        `${CART}/add-to-cart`,
        { lineItems: [candle] },
        { authorization: first.access },
      );
      const memberLine = mine.body.cart.lineItems[0].id as string;
      const v = await visitor();
      const theirs = await call('POST', `${CART}/add-to-cart`, { lineItems: [candle] }, { authorization: v });
      const visitorLine = theirs.body.cart.lineItems[0].id as string;
      const given = await call(
        'PATCH',
        CART,
        { merchantDiscounts: [{ amount: '2.00', lineItemIds: [visitorLine] }] },
        elevated(v),
      );
      expect(given.status).toBe(200);

      const merged = await memberTokens(m.id, v);
      const cart = (await call('GET', CART, undefined, { authorization: merged.access })).body.cart;
      expect(cart.lineItems.map((l: { id: string; quantity: number }) => [l.id, l.quantity])).toEqual([
        [memberLine, 2],
      ]);
      const discount = cart.appliedDiscounts.find((d: { merchantDiscount?: unknown }) => d.merchantDiscount);
      expect(discount).toMatchObject({ discountType: 'SPECIFIC_ITEMS', lineItemIds: [memberLine] });
      expect(discount.merchantDiscount.amount.amount).toBe('2.00');
      expect(Number(cart.subtotal.amount) - Number(cart.subtotalAfterDiscounts.amount)).toBeCloseTo(2);
    });

    it("deleting a member's cart made to take in the visitor's sends its creation before its deletion", async () => {
      const m = await register();
      const v = await visitor();
      expect(
        (await call('POST', `${CART}/add-to-cart`, { lineItems: [candle] }, { authorization: v })).status,
      ).toBe(200);
      const merged = await memberTokens(m.id, v);
      const deleted = await call('DELETE', CART, undefined, { authorization: merged.access });
      expect(deleted.status).toBe(200);
      const events = await emu.emu.db.query<{
        type: string;
        entity_id: string;
        entity: { mergedIntoCartId?: string };
      }>(`SELECT type, entity_id, entity FROM events WHERE type LIKE '%cart%' ORDER BY seq DESC LIMIT 3`);
      const [memberDeleted, visitorDeleted, memberCreated] = events;
      const memberCart = visitorDeleted!.entity.mergedIntoCartId!;
      expect(memberDeleted).toMatchObject({
        type: expect.stringMatching(/cart_deleted$/),
        entity_id: memberCart,
      });
      expect(memberCreated).toMatchObject({
        type: expect.stringMatching(/cart_created$/),
        entity_id: memberCart,
      });
      expect(visitorDeleted!.type).toMatch(/cart_deleted$/);
    });
  });

  describe('CORS accepts the OAuth clients’ own allowed origins', () => {
    const preflight = (origin: string, path = '/oauth2/token') =>
      fetch(emu.url + path, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });

    it('a client’s origin is allowed once the client exists; others stay refused', async () => {
      const shop = `http://shop-${backend}.test`;
      // Asked before the client exists: refused (and whatever was read is not kept afterwards).
      expect((await preflight(shop)).headers.get('access-control-allow-origin')).toBeNull();
      const created = await owner('POST', '/_api/emulator/v1/oauth-clients', {
        name: 'Shop',
        allowedOrigins: [shop],
      });
      expect(created.status).toBe(200);

      const res = await preflight(shop);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(shop);
      expect(res.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
      const grant = await fetch(`${emu.url}/oauth2/token`, {
        method: 'POST',
        headers: { origin: shop, 'content-type': 'application/json' },
        body: JSON.stringify({ clientId: created.body.clientId, grantType: 'anonymous' }),
      });
      expect(grant.status).toBe(200);
      expect(grant.headers.get('access-control-allow-origin')).toBe(shop);
      expect(grant.headers.get('access-control-expose-headers')).toMatch(/X-Wix-Request-Id/);

      // The configured origin still works; near misses and strangers do not; never on authorize.
      expect((await preflight(CONFIGURED)).headers.get('access-control-allow-origin')).toBe(CONFIGURED);
      for (const origin of [
        'http://evil.test',
        `${shop}:8080`,
        `https://shop-${backend}.test`,
        `${shop}.evil.test`,
      ])
        expect((await preflight(origin)).headers.get('access-control-allow-origin')).toBeNull();
      expect(
        (await preflight(shop, '/oauth2/authorize')).headers.get('access-control-allow-origin'),
      ).toBeNull();
    });
  });

  describe('validate-email (wire §5.5)', () => {
    const validate = (email: unknown) =>
      call('POST', '/_api/iam/authentication/v2/validate-email', { email });

    it('is valid when well-formed and unused; says why not otherwise', async () => {
      expect((await validate(newEmail())).body).toEqual({ valid: true, formatInvalid: false });
      expect((await validate('not-an-email')).body).toEqual({
        valid: false,
        failure: { reason: 'INVALID_FORMAT' },
        formatInvalid: true,
      });
      const m = await register();
      const taken = await validate(m.email.toUpperCase());
      expect(taken.status).toBe(200);
      expect(taken.body).toEqual({
        valid: false,
        failure: { reason: 'EMAIL_ALREADY_EXISTS' },
        formatInvalid: false,
      });
    });

    it('with hideAccountExistence it judges the format only; a bad request gets the envelope', async () => {
      const m = await register();
      expect((await owner('POST', '/_api/emulator/v1/settings', { hideAccountExistence: true })).status).toBe(
        200,
      );
      try {
        expect((await validate(m.email)).body).toEqual({ valid: true, formatInvalid: false });
      } finally {
        await owner('POST', '/_api/emulator/v1/settings', { hideAccountExistence: false });
      }
      const bad = await validate(42);
      expect(bad.status).toBe(400);
      expect(bad.body.details.validationError.fieldViolations[0].field).toBe('email');
    });
  });

  describe('app tokens and their instance (wire §5.6, §6)', () => {
    it('a client_credentials token for the app’s instance names it in token-info; another instance is refused', async () => {
      const app = await owner('POST', '/_api/emulator/v1/apps', { name: 'Instance app' });
      expect(app.status).toBe(200);
      const { appId, appSecret, instanceId } = app.body;
      expect(instanceId).toBe(emu.demo.siteId);
      const grant = (extra: object) =>
        token({ grant_type: 'client_credentials', client_id: appId, client_secret: appSecret, ...extra });

      const bound = await grant({ instance_id: instanceId });
      expect(bound.status).toBe(200);
      const info = await tokenInfo(bound.body.access_token);
      expect(info).toMatchObject({ active: true, subjectType: 'APP', clientId: appId, instanceId });

      const unbound = await grant({});
      expect(unbound.status).toBe(200);
      expect(await tokenInfo(unbound.body.access_token)).not.toHaveProperty('instanceId');

      const elsewhere = await grant({ instance_id: 'another-instance' });
      expect(elsewhere.status).toBe(400);
      expect(elsewhere.body.details.applicationError.code).toBe('invalid_grant');
      expect(elsewhere.body.access_token).toBeUndefined();
    });
  });
});
