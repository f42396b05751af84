/**
 * The tenth cart audit, over raw HTTP on each storage: the hosted checkout form cut every field
 * to 200 characters, so a longer (valid) e-mail address became another address, which the order
 * was placed with and its confirmation mailed to, and a long address line was cut without a word;
 * and a line's `catalogReference.options`, stored and shown back as sent, had no bound, so one
 * visitor could store carts of hundreds of megabytes; and an order placed while a login merged the
 * visitor's cart into the member's left the ordered lines in the member's cart.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES_APP_ID } from '../src/domains/catalog/lookup.ts';
import { demoProductId } from '../src/domains/catalog/seed.ts';
import {
  CHECKOUT_FORM,
  mailbox,
  startTestEmulator,
  type TestEmulator,
  testBackends,
} from '../src/testing.ts';
import {
  catalogItem,
  checkoutSession,
  customLine,
  expectEnvelope,
  fingerprintQuery,
  formFields,
  jsonCalls,
  memberAccess,
  memberRegistrar,
  visitorToken,
} from './http.ts';

const CART = '/ecom/v1/carts/current';

describe.each(testBackends())('cart audit 10 (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
  });
  afterAll(() => emu?.stop());
  const { call } = jsonCalls(() => emu);

  describe('the hosted checkout form takes each field whole, or refuses it', () => {
    const post = (url: string, fields: Record<string, string>) =>
      fetch(url, { method: 'POST', redirect: 'manual', body: new URLSearchParams(fields) });
    const orders = async (checkoutId: string) =>
      emu.emu.db.query<{ doc: any }>('SELECT doc FROM orders WHERE checkout_id = $1', [checkoutId]);

    it('an e-mail address past 200 characters is the one the order is placed with and mailed to', async () => {
      // 203 characters, valid (create-checkout takes up to 254): cut to 200 it was still "valid".
      const email = `${'a'.repeat(60)}@${'b'.repeat(130)}.example.org`;
      expect(email).toHaveLength(203);
      const { checkoutId, session } = await checkoutSession(emu, { checkout: { email } });
      const html = await (await fetch(session.fullUrl)).text();
      expect(formFields(html).email).toBe(email);
      const placed = await post(session.fullUrl, { ...formFields(html), ...CHECKOUT_FORM, email });
      expect(placed.status).toBe(200);
      expect(await placed.text()).toMatch(/Order #\d+ has been placed/);
      const [order] = await orders(checkoutId);
      expect(order!.doc.buyerInfo.email).toBe(email);
      expect(await mailbox(emu, email)).toHaveLength(1);
    });

    it('a field longer than it may be gets the page again with what is wrong, and nothing is written', async () => {
      const { checkoutId, session } = await checkoutSession(emu);
      const html = await (await fetch(session.fullUrl)).text();
      const before = await emu.emu.db.query(await fingerprintQuery(emu));
      const long = {
        addressLine: `1 ${'Long Street '.repeat(20)}`.trim(),
        email: `${'c'.repeat(250)}@example.com`,
      };
      const refused = await post(session.fullUrl, { ...formFields(html), ...CHECKOUT_FORM, ...long });
      expect(refused.status).toBe(400);
      const page = await refused.text();
      expect(page).toContain('The order was not placed');
      expect(page).toContain('Address must be at most 200 characters.');
      expect(page).toContain('The e-mail address must be at most 254 characters.');
      // What the buyer typed is shown again whole, to be corrected.
      expect(formFields(page).addressLine).toBe(long.addressLine);
      expect(await orders(checkoutId)).toEqual([]);
      expect(await emu.emu.db.query(await fingerprintQuery(emu))).toEqual(before);
    });
  });

  describe("a line's catalogReference.options are bounded, on every way in", () => {
    const ref = (options: Record<string, unknown>) => ({
      appId: STORES_APP_ID,
      catalogItemId: demoProductId('dinner-plate'),
      options,
    });
    const texts = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`Text ${i}`, 'x']));

    it('refuses too many custom texts or choices, or too much of anything, with field violations; writes nothing', async () => {
      const auth = { authorization: await visitorToken(emu) };
      const before = await emu.emu.db.query(await fingerprintQuery(emu));
      const cases: Array<[string, Record<string, unknown>, string, string, number]> = [
        ['texts', { customTextFields: texts(11) }, 'customTextFields', 'MAX_SIZE', 10],
        [
          'choices',
          { options: Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`Option ${i}`, 'x'])) },
          'options',
          'MAX_SIZE',
          6,
        ],
        ['other', { note: 'y'.repeat(20_000) }, '', 'MAX_LENGTH', 16_384],
      ];
      for (const [label, options, at, rule, max] of cases) {
        const field = `lineItems[0].catalogReference.options${at ? `.${at}` : ''}`;
        for (const path of [`${CART}/add-to-cart`, CART]) {
          const res = await fetch(emu.url + path, {
            method: path === CART ? 'PATCH' : 'POST',
            headers: { 'content-type': 'application/json', ...auth },
            body: JSON.stringify({ lineItems: [{ catalogReference: ref(options), quantity: 1 }] }),
          });
          const text = await res.text();
          expect(res.status, `${label} ${path}`).toBe(400);
          expectEnvelope(text, `${label} ${path}`);
          expect(JSON.parse(text).details.validationError.fieldViolations, `${label} ${path}`).toEqual([
            expect.objectContaining({ field, violatedRule: rule, data: { max } }),
          ]);
        }
      }
      // A merchant's custom line item carries a catalog reference of the same shape.
      const elevated = { authorization: `${auth.authorization},${emu.demo.apiKey}` };
      const custom = await call(
        'POST',
        `${CART}/add-to-cart`,
        {
          customLineItems: [
            { ...customLine('c1', '1.00'), catalogReference: ref({ customTextFields: texts(11) }) },
          ],
        },
        elevated,
      );
      expect(custom.status).toBe(400);
      expect(custom.body.details.validationError.fieldViolations[0].field).toBe(
        'customLineItems[0].catalogReference.options.customTextFields',
      );
      expect(await emu.emu.db.query(await fingerprintQuery(emu))).toEqual(before);
      expect((await call('GET', CART, undefined, auth)).status).toBe(404);
    });

    it('takes options up to the bounds, each custom text a description line', async () => {
      const auth = { authorization: await visitorToken(emu) };
      const res = await call(
        'POST',
        `${CART}/add-to-cart`,
        { lineItems: [{ catalogReference: ref({ customTextFields: texts(10) }), quantity: 1 }] },
        auth,
      );
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.cart.lineItems[0].descriptionLines).toHaveLength(10);
    });
  });

  if (backend === 'postgres')
    it("an order placed while a login merges the visitor's cart takes its lines out of the member's cart", async () => {
      const register = memberRegistrar(() => emu, 'cart-audit10');
      const visitor = await visitorToken(emu);
      const as = (token: string) => ({ authorization: token });
      const added = await call(
        'POST',
        `${CART}/add-to-cart`,
        { lineItems: [catalogItem('dinner-plate', 2)] },
        as(visitor),
      );
      expect(added.status).toBe(200);
      const { checkoutId } = (await call('POST', `${CART}/create-checkout`, {}, as(visitor))).body;
      const { redirectSession } = (
        await call(
          'POST',
          '/_api/redirects-api/v1/redirect-session',
          { ecomCheckout: { checkoutId } },
          as(visitor),
        )
      ).body;
      const html = await (await fetch(redirectSession.fullUrl)).text();
      const member = await memberAccess(emu, await register(), visitor);
      const other = new pg.Client({ connectionString: process.env.SHOPKIT_TEST_DATABASE_URL });
      await other.connect();
      let memberCart = '';
      try {
        await other.query(`SET search_path = "${emu.schema}"`);
        /** Waits until `n` of the emulator's transactions wait for a lock; `settled` must not end first. */
        const waiting = async (n: number, settled: Promise<unknown>[]) => {
          let done = false;
          for (const p of settled) void p.finally(() => (done = true));
          for (;;) {
            const rows = await other.query(
              `SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
              [`shopkit-emulator:${emu.schema}`],
            );
            if (rows.rowCount! >= n) return;
            expect(done, 'a request ended before it waited for the visitor cart').toBe(false);
            await new Promise((r) => setTimeout(r, 20));
          }
        };
        // The visitor cart held, the member's first cart call (the merge) waits for it, then the order.
        await other.query('BEGIN');
        await other.query('SELECT id FROM carts WHERE id = $1 FOR UPDATE', [added.body.cart.id]);
        const merge = call('GET', CART, undefined, as(member));
        await waiting(1, [merge]);
        const order = fetch(redirectSession.fullUrl, {
          method: 'POST',
          redirect: 'manual',
          body: new URLSearchParams({ ...formFields(html), ...CHECKOUT_FORM }),
        });
        await waiting(2, [merge, order]);
        // The merge goes first: the visitor cart is gone when the order's transaction gets to it.
        await other.query('COMMIT');
        const [merged, placed] = await Promise.all([merge, order]);
        expect(merged.status).toBe(200);
        expect(merged.body.cart.lineItems.map((l: any) => l.quantity)).toEqual([2]);
        memberCart = merged.body.cart.id;
        expect(placed.status).toBe(200);
        expect(await placed.text()).toMatch(/Order #\d+ has been placed/);
      } finally {
        await other.end();
      }
      // Every ordered unit left the member's cart, which had nothing else: it is deleted, as without a race.
      const after = await call('GET', CART, undefined, as(member));
      expect(after.status, JSON.stringify(after.body)).toBe(404);
      const events = await emu.emu.db.query<{ type: string }>(
        "SELECT type FROM events WHERE entity_id = $1 AND type = 'wix.ecom.v1.cart_deleted'",
        [memberCart],
      );
      expect(events).toHaveLength(1);
    });
});
