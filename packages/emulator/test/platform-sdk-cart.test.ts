import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import {
  receiver,
  SHOP,
  STORES_APP_ID,
  shopper as shopperOf,
  usePlatformSdk,
  webhookApp,
} from './platform-sdk.ts';

/** Where the platform's origins go: the emulator of the suite that is running. */
let target = '';
const wix = usePlatformSdk(() => target);
const shopper = (emu: TestEmulator) => shopperOf(wix(), emu);

const street = { number: '1', name: 'Main St', apt: '4B', formattedAddressLine: '1 Main St, Apt 4B' };
const address = { country: 'US', subdivision: 'US-NY', city: 'New York', addressLine1: '1 Main St' };

describe.each(testBackends())('the platform SDK with carts and their webhooks (%s)', (backend) => {
  let emu: TestEmulator;
  let hook: Awaited<ReturnType<typeof receiver>>;
  beforeAll(async () => {
    hook = await receiver();
    emu = await startTestEmulator(backend, { allowedOrigins: [SHOP], webhooks: [hook.url] });
    target = emu.url;
  });
  afterAll(async () => {
    await emu?.stop();
    await hook?.close();
  });

  /** A platform SDK shopper with `quantity` of a product in the cart. */
  async function cartWith(slug: string, quantity = 1) {
    const client = shopper(emu);
    const { items } = await client.products.queryProducts().eq('slug', slug).find();
    const { cart } = await client.currentCart.addToCurrentCart({
      lineItems: [{ catalogReference: { appId: STORES_APP_ID, catalogItemId: items[0]._id }, quantity }],
    });
    return { client, cart };
  }

  it('keeps the street line (streetAddress.formattedAddressLine) of the contact address', async () => {
    const { client } = await cartWith('linen-tea-towels');
    const cart = await client.currentCart.updateCurrentCart({
      cartInfo: { contactInfo: { address: { ...address, streetAddress: street } } },
    });
    expect(cart.contactInfo.address).toMatchObject({ ...address, streetAddress: street });
    expect((await client.currentCart.getCurrentCart()).contactInfo.address.streetAddress).toEqual(street);
  });

  it("checks out on every value of the platform SDK's ChannelType", async () => {
    const { client } = await cartWith('linen-tea-towels');
    const channels = Object.values(wix().currentCart.ChannelType) as string[];
    expect(channels).toEqual(expect.arrayContaining(['WIX_INVOICES_PLATFORM', 'UCP_AGENTIC_CHECKOUT']));
    const refused: string[] = [];
    for (const channelType of channels)
      await client.currentCart
        .createCheckoutFromCurrentCart({ channelType })
        .catch(() => refused.push(channelType));
    expect(refused).toEqual([]);
  });

  it('estimates in the shapes of its typings: charges with costs, reasons, violations by place', async () => {
    const { client, cart } = await cartWith('linen-tea-towels');
    const { items } = await client.products.queryProducts().eq('slug', 'olive-wood-spoon').find();
    const { cart: withSpoon } = await client.currentCart.addToCurrentCart({
      lineItems: [{ catalogReference: { appId: STORES_APP_ID, catalogItemId: items[0]._id }, quantity: 1 }],
    });
    const spoon = withSpoon.lineItems.find((l: any) => l._id !== cart.lineItems[0]._id);
    const est = await client.currentCart.estimateCurrentCartTotals({
      shippingAddress: address,
      selectedShippingOption: { code: 'express' },
      selectedMemberships: { memberships: [{ _id: 'plan-1', appId: 'plans-app', lineItemIds: [] }] },
    });
    // SelectedCarrierServiceOptionOtherCharge: {type, details, cost: SelectedCarrierServiceOptionPrices}.
    const money = (amount: string) => expect.objectContaining({ amount });
    expect(est.shippingInfo.selectedCarrierServiceOption.otherCharges).toEqual([
      {
        type: 'HANDLING_FEE',
        details: expect.any(String),
        cost: {
          price: money('2.00'),
          totalDiscount: money('0.00'),
          totalPriceBeforeTax: money('2.00'),
          totalPriceAfterTax: money('2.18'),
          taxDetails: expect.objectContaining({ totalTax: money('0.18') }),
        },
      },
    ]);
    // InvalidMembership: {membership, reason}.
    expect(est.membershipOptions.invalidMemberships).toEqual([
      {
        membership: expect.objectContaining({ _id: 'plan-1', appId: 'plans-app' }),
        reason: expect.any(String),
      },
    ]);
    // TargetLineItem: {name: NameInLineItem, _id}, with the product spec's suggestedFix.
    expect(est.violations).toEqual([
      {
        severity: 'ERROR',
        target: { lineItem: { _id: spoon._id, name: 'LINE_ITEM_DEFAULT', suggestedFix: 'REMOVE_LINE_ITEM' } },
        description: 'Olive Wood Spoon is out of stock',
      },
    ]);
  });

  it('dispatches cart and redirect session events to its webhook handlers, with their entities', async () => {
    const { app, seen, on, dispatch } = await webhookApp(wix(), emu, {
      currentCart: wix().currentCart,
      redirects: wix().redirects,
    });
    app.currentCart.onCartCreated(on('created'));
    app.currentCart.onCartUpdated(on('updated'));
    app.currentCart.onCartDeleted(on('deleted'));
    app.redirects.onRedirectSessionCreated(on('redirect'));

    const { client, cart } = await cartWith('linen-tea-towels');
    await client.currentCart.updateCurrentCart({
      cartInfo: { contactInfo: { address: { ...address, streetAddress: street } } },
    });
    await client.currentCart.updateCurrentCartLineItemQuantity([{ _id: cart.lineItems[0]._id, quantity: 2 }]);
    const { checkoutId } = await client.currentCart.createCheckoutFromCurrentCart({ channelType: 'WEB' });
    const { redirectSession } = await client.redirects.createRedirectSession({
      ecomCheckout: { checkoutId },
    });
    await client.currentCart.deleteCurrentCart();
    await emu.deliverWebhooks();

    const ours = await dispatch(hook.bodies);
    const of = (name: string, id: string) => (seen[name] ?? []).filter((e) => e.metadata.entityId === id);

    // Created: the cart, through the platform SDK's transforms (ids, dates, images).
    const [created] = of('created', cart._id);
    expect(created.entity).toMatchObject({ _id: cart._id, lineItems: [{ quantity: 1 }] });
    expect(created.entity._createdDate).toBeInstanceOf(Date);
    expect(created.entity.lineItems[0].image).toMatch(/^wix:image:\/\/v1\//);
    expect(created.metadata.eventTime).toBeInstanceOf(Date);
    // Who made the change: the visitor whose cart it is.
    const visitor = { identityType: 'ANONYMOUS_VISITOR', anonymousVisitorId: cart.buyerInfo.visitorId };
    expect(visitor.anonymousVisitorId).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata.identity).toEqual(visitor);

    // Updated: the cart as it now is, and the changed fields with their values before the change.
    const [contact, quantity, checkout] = of('updated', cart._id);
    expect(contact.entity.contactInfo.address).toMatchObject({ ...address, streetAddress: street });
    expect(contact.modifiedFields).toMatchObject({ contactInfo: null });
    expect(contact.modifiedFields._updatedDate).toBeInstanceOf(Date);
    expect(quantity.entity.lineItems[0].quantity).toBe(2);
    expect(quantity.modifiedFields.lineItems[0]).toMatchObject({ _id: cart.lineItems[0]._id, quantity: 1 });
    expect(quantity.modifiedFields.lineItems[0].image).toMatch(/^wix:image:\/\/v1\//);
    expect(quantity.modifiedFields).not.toHaveProperty('contactInfo');
    expect(checkout.entity.checkoutId).toBe(checkoutId);
    expect(checkout.modifiedFields).toMatchObject({ checkoutId: null });

    // Deleted: the deleted entity's ids.
    const [deleted] = of('deleted', cart._id);
    expect(deleted.entity).toEqual({ _id: cart._id });

    // A redirect session.
    const [session] = of('redirect', redirectSession._id);
    expect(session.entity).toMatchObject({ _id: redirectSession._id, fullUrl: redirectSession.fullUrl });

    // Our SDK reads the same bodies: the entity as JSON, the changed fields by name.
    const mine = ours.filter((e) => e.entityId === cart._id);
    expect(mine.map((e) => e.type)).toEqual([
      'wix.ecom.v1.cart_created',
      'wix.ecom.v1.cart_updated',
      'wix.ecom.v1.cart_updated',
      'wix.ecom.v1.cart_updated',
      'wix.ecom.v1.cart_deleted',
    ]);
    // … and the cart as its calls read it, as the platform SDK's handler does.
    const cartOf = (e: (typeof mine)[number]) =>
      e.entity as { createdDate: Date; lineItems: { image: string }[] };
    expect(cartOf(mine[0]!).createdDate).toEqual(created.entity._createdDate);
    expect(cartOf(mine[0]!).lineItems[0]!.image).toBe(created.entity.lineItems[0].image);
    expect(mine[1]!.modifiedFields).toEqual(expect.arrayContaining(['contactInfo', 'updatedDate']));
    expect(mine[2]!.modifiedFields).toEqual(expect.arrayContaining(['lineItems']));
    expect(mine[4]!.entity).toEqual({ id: cart._id });
    expect(mine.map((e) => e.identity)).toEqual(mine.map(() => visitor));
  });
});
