/**
 * The eighth cart audit, over raw HTTP on each storage: units of one variant with different custom
 * text (`catalogReference.options.customTextFields`, an engraving) were merged into one line, so
 * the later text was lost; and the hosted checkout ignored `callbacks.thankYouPageUrl`,
 * where the platform sends the buyer after an order, with its `orderId`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES_APP_ID } from '../src/domains/catalog/lookup.ts';
import { CHECKOUT_FORM, startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { checkoutSession, formFields, jsonCalls, visitorToken } from './http.ts';

const CART = '/ecom/v1/carts/current';
const SHOP = 'http://localhost:5173';

describe.each(testBackends())('cart audit 8 (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend, { allowedOrigins: [SHOP] });
  });
  afterAll(() => emu?.stop());
  const { call, owner } = jsonCalls(() => emu);
  /** Calls as the holder of `token`, failing on anything but a 200. */
  const as = (token: string) => async (method: string, path: string, body?: object) => {
    const res = await call(method, path, body, { authorization: token });
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  /** Places the order of a checkout's hosted page as a browser would post it; the answer unread. */
  const place = async (session: { id: string; fullUrl: string }) => {
    const page = await (await fetch(session.fullUrl)).text();
    return fetch(`${emu.url}/redirect/${session.id}`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ ...formFields(page), ...CHECKOUT_FORM }),
    });
  };

  it('keeps units of one variant with different custom text on lines of their own, sharing its stock', async () => {
    const made = await owner('POST', '/stores/v1/products', {
      product: {
        name: `Engraved ring ${backend}`,
        productType: 'physical',
        priceData: { price: 40 },
        customTextFields: [{ title: 'Engraving', maxLength: 20 }],
        stock: { trackInventory: true, quantity: 4 },
      },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const line = (engraving: string, quantity: number) => ({
      catalogReference: {
        appId: STORES_APP_ID,
        catalogItemId: made.body.product.id,
        options: { customTextFields: { Engraving: engraving } },
      },
      quantity,
    });
    const token = await visitorToken(emu);
    const buyer = as(token);
    await buyer('POST', `${CART}/add-to-cart`, { lineItems: [line('Ada', 2)] });
    await buyer('POST', `${CART}/add-to-cart`, { lineItems: [line('Bob', 2)] });
    const { cart } = await buyer('POST', `${CART}/add-to-cart`, { lineItems: [line('Ada', 1)] });
    // Each engraving its line (the same one again adds to it), shown as a description line.
    const shown = cart.lineItems.map((l: any) => ({
      quantity: l.quantity,
      text: l.catalogReference.options.customTextFields.Engraving,
      description: l.descriptionLines,
      availability: l.availability,
    }));
    expect(shown).toEqual([
      {
        quantity: 3,
        text: 'Ada',
        description: [
          {
            name: { original: 'Engraving', translated: 'Engraving' },
            plainText: { original: 'Ada', translated: 'Ada' },
            lineType: 'PLAIN_TEXT',
          },
        ],
        availability: { status: 'AVAILABLE', quantityAvailable: 4 },
      },
      {
        quantity: 2,
        text: 'Bob',
        description: [expect.objectContaining({ plainText: { original: 'Bob', translated: 'Bob' } })],
        // The 4 in stock are the variant's, for both lines: 3 are Ada's.
        availability: { status: 'PARTIALLY_AVAILABLE', quantityAvailable: 1 },
      },
    ]);
    const refused = await call('POST', `${CART}/create-checkout`, {}, { authorization: token });
    expect(refused.status).toBe(400);
    expect(refused.body.details.applicationError.code).toBe('LINE_ITEMS_NOT_AVAILABLE');

    // Within the stock, both engravings are checked out and ordered, and leave the cart.
    const bob = cart.lineItems[1].id;
    await buyer('POST', `${CART}/update-line-items-quantity`, { lineItems: [{ id: bob, quantity: 1 }] });
    const { checkoutId } = await buyer('POST', `${CART}/create-checkout`, {});
    const { redirectSession } = await buyer('POST', '/_api/redirects-api/v1/redirect-session', {
      ecomCheckout: { checkoutId },
    });
    const page = await (await fetch(redirectSession.fullUrl)).text();
    expect(page).toContain('Engraving: Ada');
    expect(page).toContain('Engraving: Bob');
    expect(await (await place(redirectSession)).text()).toMatch(/Order #\d+ has been placed/);
    const [order] = await emu.emu.db.query<{ doc: any }>('SELECT doc FROM orders WHERE checkout_id = $1', [
      checkoutId,
    ]);
    expect(
      order!.doc.lineItems.map((l: any) => [
        l.quantity,
        l.catalogReference.options.customTextFields.Engraving,
      ]),
    ).toEqual([
      [3, 'Ada'],
      [1, 'Bob'],
    ]);
    expect((await call('GET', CART, undefined, { authorization: token })).status).toBe(404);
  });

  it('refuses custom text that is not text, with a field violation', async () => {
    const res = await call(
      'POST',
      `${CART}/add-to-cart`,
      {
        lineItems: [
          {
            catalogReference: {
              appId: STORES_APP_ID,
              catalogItemId: 'any',
              options: { customTextFields: { Engraving: 5 } },
            },
          },
        ],
      },
      { authorization: await visitorToken(emu) },
    );
    expect(res.status).toBe(400);
    expect(res.body.details.validationError.fieldViolations[0].field).toBe(
      'lineItems[0].catalogReference.options.customTextFields.Engraving',
    );
  });

  describe("after the order, the buyer goes to the session's thankYouPageUrl with the orderId", () => {
    const orderOf = async (checkoutId: string) =>
      (
        await emu.emu.db.query<{ id: string }>('SELECT id FROM orders WHERE checkout_id = $1', [checkoutId])
      )[0]!.id;

    it('before the postFlowUrl, and its form may be redirected to its origin', async () => {
      const { checkoutId, session } = await checkoutSession(emu, {
        callbacks: { thankYouPageUrl: `${SHOP}/thank-you?from=emu#top`, postFlowUrl: `${emu.url}/back` },
      });
      const page = await fetch(session.fullUrl);
      expect(page.headers.get('content-security-policy')).toContain(`form-action 'self' ${SHOP};`);
      const placed = await place(session);
      expect(placed.status).toBe(303);
      expect(placed.headers.get('location')).toBe(
        `${SHOP}/thank-you?from=emu&orderId=${await orderOf(checkoutId)}#top`,
      );
    });

    it('not when it is on an origin the client may not be sent to: then the postFlowUrl', async () => {
      const { session } = await checkoutSession(emu, {
        callbacks: { thankYouPageUrl: 'https://evil.example/thanks', postFlowUrl: `${SHOP}/back` },
      });
      const placed = await place(session);
      expect(placed.status).toBe(303);
      expect(placed.headers.get('location')).toBe(`${SHOP}/back`);
    });
  });
});
