/**
 * Rules of a cart's money that hold across calls, over raw HTTP: a merchant discount names each
 * line once and takes no line below zero, its percentage has at most 6 decimal places (never
 * applied as 0 %), and a custom line's price is at most the catalog's 999 999 999.99 while the
 * subtotal stays where cents are exact. Every refusal is a 400 envelope and writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { customLine, fingerprintQuery, jsonCalls, visitorToken } from './http.ts';

const CART = '/ecom/v1/carts/current';

describe.each(testBackends())('cart rules (%s)', (backend) => {
  let emu: TestEmulator;
  let fingerprint: string;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
    fingerprint = await fingerprintQuery(emu);
  });
  afterAll(() => emu?.stop());

  const { call } = jsonCalls(() => emu);
  /** A new visitor's calls as the merchant too (`<token>,<apiKey>`), as custom lines need. */
  const merchantOfNewCart = async () => {
    const auth = `${await visitorToken(emu)},${emu.demo.apiKey}`;
    return (method: string, path: string, body?: object) => call(method, path, body, { authorization: auth });
  };
  const custom = customLine;
  /** A refused call: a 400 envelope with field violations, and storage exactly as before. */
  const refused = async (send: () => ReturnType<typeof call>) => {
    const [before] = await emu.emu.db.query(fingerprint);
    const res = await send();
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.details)).toEqual(['validationError']);
    expect(await emu.emu.db.query(fingerprint)).toEqual([before]);
    return res.body.details.validationError.fieldViolations;
  };

  it('refuses a merchant discount that names a line twice; no line goes below zero', async () => {
    const as = await merchantOfNewCart();
    expect(
      (await as('POST', `${CART}/add-to-cart`, { customLineItems: [custom('L', '10.00')] })).status,
    ).toBe(200);
    const bad = await refused(() =>
      as('PATCH', CART, { merchantDiscounts: [{ amount: '15.00', lineItemIds: ['L', 'L'] }] }),
    );
    expect(bad).toEqual([
      {
        field: 'merchantDiscounts[0].lineItemIds[1]',
        description: 'repeats merchantDiscounts[0].lineItemIds[0]',
        violatedRule: 'VALIDATION',
        data: {},
      },
    ]);
    const once = await as('PATCH', CART, { merchantDiscounts: [{ amount: '15.00', lineItemIds: ['L'] }] });
    expect(once.status).toBe(200);
    expect(once.body.cart.subtotalAfterDiscounts.amount).toBe('0.00');
    expect(once.body.cart.appliedDiscounts).toEqual([
      expect.objectContaining({
        lineItemIds: ['L'],
        merchantDiscount: expect.objectContaining({ amount: expect.objectContaining({ amount: '10.00' }) }),
      }),
    ]);
  });

  it('refuses a merchant percentage with more than 6 decimal places, and applies one with 6', async () => {
    const as = await merchantOfNewCart();
    expect(
      (await as('POST', `${CART}/add-to-cart`, { customLineItems: [custom('L', '10.00')] })).status,
    ).toBe(200);
    for (const percentage of [12.3456789, 1e-7]) {
      const bad = await refused(() => as('PATCH', CART, { merchantDiscounts: [{ percentage }] }));
      expect(bad).toEqual([
        {
          field: 'merchantDiscounts[0].percentage',
          description: 'must have at most 6 decimal places',
          violatedRule: 'DECIMAL_MAX_SCALE',
          data: { maxScale: 6 },
        },
      ]);
    }
    const ok = await as('PATCH', CART, { merchantDiscounts: [{ percentage: 12.345678 }] });
    expect(ok.status).toBe(200);
    expect(ok.body.cart.subtotalAfterDiscounts.amount).toBe('8.77'); // 10.00 − 1.23
  });

  it('caps a custom line price at 999999999.99 and the subtotal where cents stay exact', async () => {
    const as = await merchantOfNewCart();
    const huge = await refused(() =>
      as('POST', `${CART}/add-to-cart`, { customLineItems: [custom('H', '9999999999999.99', 9999)] }),
    );
    expect(huge).toEqual([
      {
        field: 'customLineItems[0].price',
        description: 'must be at most 999999999.99',
        violatedRule: 'DECIMAL_LTE',
        data: { max: '999999999.99' },
      },
    ]);
    // The dearest line at the most quantity is exact to the cent.
    const dear = await as('POST', `${CART}/add-to-cart`, {
      customLineItems: [custom('A', '999999999.99', 9999), custom('B', '999999999.99', 1)],
    });
    expect(dear.status).toBe(200);
    expect(dear.body.cart.lineItems[0].lineItemPrice.amount).toBe('9998999999900.01');
    expect(dear.body.cart.subtotal.amount).toBe('9999999999900.00');
    // Past the bound of the subtotal: another line, or a larger quantity.
    const more = await refused(() =>
      as('POST', `${CART}/add-to-cart`, { customLineItems: [custom('C', '999999999.99', 1)] }),
    );
    expect(more).toEqual([
      {
        field: 'customLineItems',
        description:
          "would make the subtotal 10000999999899.99; a cart's subtotal is at most 9999999999999.99",
        violatedRule: 'MAX',
        data: { max: '9999999999999.99' },
      },
    ]);
    const raised = await refused(() =>
      as('POST', `${CART}/update-line-items-quantity`, { lineItems: [{ id: 'B', quantity: 2 }] }),
    );
    expect(raised.map((v: { field: string }) => v.field)).toEqual(['lineItems']);
    const lowered = await as('POST', `${CART}/update-line-items-quantity`, {
      lineItems: [{ id: 'A', quantity: 1 }],
    });
    expect(lowered.status).toBe(200);
    expect(lowered.body.cart.subtotal.amount).toBe('1999999999.98');
  });
});
