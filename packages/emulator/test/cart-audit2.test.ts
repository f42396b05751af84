/**
 * Cart rules at a login merge and after line removals, over raw HTTP on both storages: a merge
 * keeps of the visitor's cart what fits the cart's limits (the subtotal too, never a cart that no
 * add could make); a merchant discount only ever names lines of the cart (a removed line's id
 * reused by a new line does not bring its discount back, and a discount left with none of its
 * lines goes, rather than widening to the whole cart); and a consumer of the events sees a member
 * cart's creation before the visitor cart's deletion that names it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoProductId } from '../src/domains/catalog/seed.ts';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { catalogItem, customLine, jsonCalls, memberAccess, memberRegistrar, visitorToken } from './http.ts';

const CART = '/ecom/v1/carts/current';
const MAX_SUBTOTAL = 999_999_999_999_999n;
const cents = (amount: string) => BigInt(amount.replace('.', ''));

describe.each(testBackends())('cart audit 2 (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
  });
  afterAll(() => emu?.stop());

  const { call } = jsonCalls(() => emu);
  const item = catalogItem;
  const custom = customLine;
  /** The cart calls of one caller, as the merchant too (`<token>,<apiKey>`) for custom lines. */
  const as = (token: string) => {
    const h = { authorization: `${token},${emu.demo.apiKey}` };
    const ok = async (res: { status: number; body: any }) => {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    };
    return {
      add: (body: object) => call('POST', `${CART}/add-to-cart`, body, h).then(ok),
      get: () => call('GET', CART, undefined, { authorization: token }),
      patch: (body: object) => call('PATCH', CART, body, h).then(ok),
      remove: (ids: string[]) => call('POST', `${CART}/remove-line-items`, { lineItemIds: ids }, h).then(ok),
      quantity: (id: string, quantity: number) =>
        call('POST', `${CART}/update-line-items-quantity`, { lineItems: [{ id, quantity }] }, h).then(ok),
      del: () => call('DELETE', CART, undefined, h).then(ok),
      checkout: () => call('POST', `${CART}/create-checkout`, {}, h).then(ok),
    };
  };
  const register = memberRegistrar(() => emu, 'audit2');
  const memberToken = (memberId: string, visitor: string) => memberAccess(emu, memberId, visitor);
  const storedDoc = async (cartId: string) =>
    (await emu.emu.db.query<{ doc: any }>('SELECT doc FROM carts WHERE id = $1', [cartId]))[0]!.doc;
  const lastSeq = async () =>
    Number((await emu.emu.db.query<{ s: number }>('SELECT coalesce(max(seq), 0) AS s FROM events'))[0]!.s);
  const cartEvents = async (since: number) =>
    emu.emu.db.query<{ type: string; entity_id: string; entity: any }>(
      `SELECT type, entity_id, entity FROM events WHERE seq > $1 AND type LIKE 'wix.ecom.v1.%' ORDER BY seq`,
      [since],
    );

  it("a login merge keeps what fits under the subtotal's bound: never a cart that no add could make", async () => {
    const member = await register();
    // The member's own cart, nearly at the bound: 9 998 999 999 900.01.
    const m0 = as(await memberToken(member, await visitorToken(emu)));
    await m0.add({ customLineItems: [custom('M', '999999999.99', 9999)] });
    const visitorTok = await visitorToken(emu);
    const v = as(visitorTok);
    await v.add({ customLineItems: [custom('V', '999999999.99', 2)] });
    const before = (await v.add({ lineItems: [item('dinner-plate', 3), item('olive-wood-spoon', 200)] }))
      .cart;
    const unit = (i: number) => cents(before.lineItems[i].price.amount);
    const res = await as(await memberToken(member, visitorTok)).get();
    expect(res.status).toBe(200);
    const cart = res.body.cart;
    // Room left: 1 000 000 099.98 → one V (99.99 left), then the plates and spoons that fit.
    let room = 9_999_999_999_999_99n - 9_998_999_999_900_01n - unit(0);
    const plates = Math.min(3, Number(room / unit(1)));
    room -= BigInt(plates) * unit(1);
    const spoons = Math.min(200, Number(room / unit(2)));
    expect(plates).toBeGreaterThan(0);
    expect(spoons).toBeLessThan(200);
    const want: Array<[string, number]> = [
      ['M', 9999],
      ['V', 1],
      [demoProductId('dinner-plate'), plates],
      ...(spoons ? [[demoProductId('olive-wood-spoon'), spoons] as [string, number]] : []),
    ];
    expect(
      cart.lineItems.map((l: any) => [
        l.customLineItem ? l.id : l.catalogReference.catalogItemId,
        l.quantity,
      ]),
    ).toEqual(want);
    expect(cents(cart.subtotal.amount)).toBeLessThanOrEqual(MAX_SUBTOTAL);
    const sum = cart.lineItems.reduce((t: bigint, l: any) => t + cents(l.lineItemPrice.amount), 0n);
    expect(cents(cart.subtotal.amount)).toBe(sum);
  });

  it('a merge at the line bound drops the discounts of the visitor lines it could not take', async () => {
    const member = await register();
    const m0 = as(await memberToken(member, await visitorToken(emu)));
    await m0.add({ customLineItems: Array.from({ length: 300 }, (_, i) => custom(`m${i}`, '1.00')) });
    const visitorTok = await visitorToken(emu);
    const v = as(visitorTok);
    await v.add({ customLineItems: [custom('X', '10.00')] });
    await v.patch({ merchantDiscounts: [{ percentage: 50, lineItemIds: ['X'] }] });
    const m = as(await memberToken(member, visitorTok));
    const merged = (await m.get()).body.cart;
    expect(merged.lineItems).toHaveLength(300);
    // No discount names a line the cart does not hold, none turned into one on the whole cart.
    expect(merged.appliedDiscounts).toEqual([]);
    expect(merged.subtotalAfterDiscounts.amount).toBe('300.00');
    expect((await storedDoc(merged.id)).merchantDiscounts ?? []).toEqual([]);
    // Room made, a new line with the dropped line's id gets no discount of the visitor's.
    await m.remove(['m0']);
    const added = (await m.add({ customLineItems: [custom('X', '10.00')] })).cart;
    expect(added.appliedDiscounts).toEqual([]);
    expect(added.subtotalAfterDiscounts.amount).toBe('309.00');
  });

  it('removing or zeroing lines takes them out of the merchant discounts that named them', async () => {
    const v = as(await visitorToken(emu));
    const { cart } = await v.add({ customLineItems: [custom('A', '10.00'), custom('B', '10.00')] });
    await v.patch({
      merchantDiscounts: [
        { percentage: 50, lineItemIds: ['A'] },
        { amount: '1.00', lineItemIds: ['A', 'B'] },
      ],
    });
    const removed = (await v.remove(['A'])).cart;
    expect(removed.appliedDiscounts).toEqual([
      expect.objectContaining({ discountType: 'SPECIFIC_ITEMS', lineItemIds: ['B'] }),
    ]);
    expect((await storedDoc(cart.id)).merchantDiscounts).toEqual([{ amount: '1.00', lineItemIds: ['B'] }]);
    // A new line under the removed line's id is a new line: the 50 % was the old one's.
    const again = (await v.add({ customLineItems: [custom('A', '100.00')] })).cart;
    expect(again.subtotal.amount).toBe('110.00');
    expect(again.subtotalAfterDiscounts.amount).toBe('109.00');
    const zeroed = (await v.quantity('B', 0)).cart;
    expect(zeroed.appliedDiscounts).toEqual([]);
    expect(zeroed.subtotalAfterDiscounts.amount).toBe('100.00');
    expect((await storedDoc(cart.id)).merchantDiscounts).toEqual([]);
    // The checkout taken from it names no line it does not hold.
    const { checkoutId } = await v.checkout();
    const co = await emu.emu.db.query<{ doc: any }>('SELECT doc FROM checkouts WHERE id = $1', [checkoutId]);
    expect(co[0]!.doc.merchantDiscounts).toEqual([]);
  });

  describe("a login merge records the member cart's event before the visitor cart's deletion", () => {
    /** A visitor with a cart, and the member logged in from it; `ownCart` gives the member one first. */
    const loggedIn = async (ownCart: boolean) => {
      const member = await register();
      let memberCart: string | undefined;
      if (ownCart)
        memberCart = (
          await as(await memberToken(member, await visitorToken(emu))).add({
            lineItems: [item('dinner-plate')],
          })
        ).cart.id;
      const visitorTok = await visitorToken(emu);
      const visitorCart = (await as(visitorTok).add({ lineItems: [item('beeswax-candle')] })).cart
        .id as string;
      return { m: as(await memberToken(member, visitorTok)), visitorCart, memberCart };
    };
    const deletedInto = (visitorCart: string, memberCart: string) => ({
      type: 'wix.ecom.v1.cart_deleted',
      entity_id: visitorCart,
      entity: { id: visitorCart, mergedIntoCartId: memberCart },
    });

    it('a read that makes the member cart: created, then the deletion naming it', async () => {
      const { m, visitorCart } = await loggedIn(false);
      const since = await lastSeq();
      const cart = (await m.get()).body.cart;
      expect(await cartEvents(since)).toEqual([
        expect.objectContaining({ type: 'wix.ecom.v1.cart_created', entity_id: cart.id }),
        deletedInto(visitorCart, cart.id),
      ]);
    });

    it("into the member's own cart: updated, then the deletion naming it", async () => {
      const { m, visitorCart, memberCart } = await loggedIn(true);
      const since = await lastSeq();
      await m.get();
      expect(await cartEvents(since)).toEqual([
        expect.objectContaining({ type: 'wix.ecom.v1.cart_updated', entity_id: memberCart }),
        deletedInto(visitorCart, memberCart!),
      ]);
    });

    it("a member's first call being DELETE or create-checkout: created, the visitor's deletion, then the rest", async () => {
      const first = await loggedIn(false);
      let since = await lastSeq();
      await first.m.del();
      const deleted = await cartEvents(since);
      const memberCart = deleted[0]!.entity_id;
      expect(deleted).toEqual([
        expect.objectContaining({ type: 'wix.ecom.v1.cart_created', entity_id: memberCart }),
        deletedInto(first.visitorCart, memberCart),
        { type: 'wix.ecom.v1.cart_deleted', entity_id: memberCart, entity: { id: memberCart } },
      ]);

      const second = await loggedIn(false);
      since = await lastSeq();
      const { checkoutId } = await second.m.checkout();
      const checkedOut = await cartEvents(since);
      const cart2 = checkedOut[0]!.entity_id;
      expect(checkedOut).toEqual([
        expect.objectContaining({ type: 'wix.ecom.v1.cart_created', entity_id: cart2 }),
        deletedInto(second.visitorCart, cart2),
        expect.objectContaining({ type: 'wix.ecom.v1.checkout_created', entity_id: checkoutId }),
      ]);
    });
  });
});
