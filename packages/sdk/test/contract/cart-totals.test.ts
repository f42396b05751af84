/**
 * Estimated totals of the current cart through the SDK: each coupon kind, merchant discounts,
 * shipping options (carriers, delivery slots, store pickup with its address), regional tax with the
 * spec's tax enumerations, exact money (half-cent rounding, cent allocation), and bad input.
 */
import { testBackends } from '@shopkit/emulator/testing';
import { describe, expect, it } from 'vitest';
import {
  type cart as CartModule,
  ChargeType,
  cart,
  DiscountType,
  JurisdictionType,
  ManualCalculationReason,
  PickupMethod,
  RateType,
  TaxableAddressType,
  ValidationError,
} from '../../src/index.ts';
import { failure, setupCatalog, setupEmulator, visitorClient, withMerchant } from './setup.ts';

type Address = CartModule.Address;

const NY: Address = {
  country: 'US',
  subdivision: 'US-NY',
  city: 'Albany',
  postalCode: '12207',
  addressLine1: '1 Main St',
};
const CA: Address = { country: 'US', subdivision: 'US-CA', city: 'Oakland', postalCode: '94607' };
const GB: Address = { country: 'GB', city: 'London', postalCode: 'N1 9GU' };
const JP: Address = { country: 'JP', city: 'Tokyo' };

/** New York's state tax (8.875 %) on `taxable`, as the estimate details it. */
const newYorkTax = (taxable: string, tax: string) => ({
  taxableAmount: expect.objectContaining({ amount: taxable }),
  taxRate: '0.08875',
  totalTax: expect.objectContaining({ amount: tax }),
  rateBreakdown: [
    {
      name: 'New York',
      rate: '0.08875',
      tax: expect.objectContaining({ amount: tax }),
      jurisdictionType: JurisdictionType.STATE,
    },
  ],
});

describe.each(testBackends())('estimate totals (%s)', (backend) => {
  const emu = setupEmulator(backend);
  const { item } = setupCatalog(emu);

  const visitor = () => visitorClient(emu, { cart });
  const amounts = (s: Record<string, { amount: string } | undefined>) =>
    Object.fromEntries(Object.entries(s).map(([k, v]) => [k, v?.amount]));

  it('percentage coupon with state tax on items and shipping', async () => {
    const c = visitor();
    await c.cart.addToCurrentCart({ lineItems: [item('wool-beanie', 3, { Color: 'Rust' })] }); // 19.60 each
    await c.cart.updateCurrentCart({ couponCode: 'SAVE10' });
    const est = await c.cart.estimateCurrentCartTotals({ shippingAddress: NY });
    // 58.80 − 5.88 = 52.92; tax 8.875 % of 52.92 = 4.696665 → 4.70; shipping 5.00, its tax 0.44375 → 0.44.
    expect(amounts(est.priceSummary as any)).toEqual({
      subtotal: '58.80',
      discount: '5.88',
      shipping: '5.00',
      tax: '5.14',
      total: '63.06',
      additionalFees: '0.00',
    });
    expect(est.priceSummary.total.formattedAmount).toBe('$63.06');
    expect(est.payNow.total.amount).toBe('63.06');
    expect(est.payLater.total.amount).toBe('0.00');
    expect(est.currency).toBe('USD');
    expect(est.weightUnit).toBe('KG');
    expect(est.appliedDiscounts).toEqual([
      expect.objectContaining({
        discountType: DiscountType.GLOBAL,
        coupon: expect.objectContaining({
          code: 'SAVE10',
          amount: expect.objectContaining({ amount: '5.88' }),
        }),
      }),
    ]);
    const line = est.calculatedLineItems[0]!;
    expect(line.taxableAddress).toEqual({ addressType: TaxableAddressType.SHIPPING });
    expect(line.pricesBreakdown.taxDetails).toEqual(newYorkTax('52.92', '4.70'));
    expect(amounts(line.pricesBreakdown as any)).toMatchObject({
      totalPriceBeforeTax: '52.92',
      totalPriceAfterTax: '57.62',
      totalDiscount: '5.88',
      lineItemPrice: '58.80',
    });
    expect(est.taxSummary).toEqual({
      taxableAmount: expect.objectContaining({ amount: '57.92' }),
      totalTax: expect.objectContaining({ amount: '5.14' }),
      calculationDetails: {
        rateType: RateType.MANUAL_RATE,
        manualRateReason: ManualCalculationReason.GLOBAL_SETTING_TO_MANUAL,
      },
    });
    expect(est.cart.lineItems[0]!.quantity).toBe(3);
    expect(est.cart.createdDate).toBeInstanceOf(Date);
  });

  it('fixed-amount coupon split over lines to the cent, state without tax on shipping, express with handling fee', async () => {
    const c = visitor();
    await c.cart.addToCurrentCart({ lineItems: [item('linen-tea-towels', 2), item('gift-card')] }); // 36 + 50
    await c.cart.updateCurrentCart({ couponCode: 'TAKE5' });
    const est = await c.cart.estimateCurrentCartTotals({
      shippingAddress: CA,
      selectedShippingOption: { code: 'express' },
    });
    // 5.00 split 36:50 → 2.09 + 2.91 (largest remainder); tax 7.25 % of 33.91 → 2.46, of 47.09 → 3.41.
    expect(
      est.calculatedLineItems.map((l) => [
        l.pricesBreakdown.totalDiscount.amount,
        l.pricesBreakdown.taxDetails?.totalTax.amount,
      ]),
    ).toEqual([
      ['2.09', '2.46'],
      ['2.91', '3.41'],
    ]);
    expect(amounts(est.priceSummary as any)).toMatchObject({
      subtotal: '86.00',
      discount: '5.00',
      shipping: '17.00',
      tax: '5.87',
      total: '103.87',
    });
    const sel = est.shippingInfo!.selectedCarrierServiceOption!;
    expect(sel).toMatchObject({
      code: 'express',
      title: 'Express delivery',
      requestedShippingOption: true,
      otherCharges: [{ type: ChargeType.HANDLING_FEE, details: 'Handling of an express parcel' }],
    });
    expect(amounts(sel.cost as any)).toMatchObject({
      price: '17.00',
      totalPriceBeforeTax: '17.00',
      totalPriceAfterTax: '17.00',
    });
    // Each charge has a cost of its own, as the platform's typings have it (California: no tax on shipping).
    const fee = sel.otherCharges![0]!.cost;
    expect(amounts(fee as any)).toMatchObject({
      price: '2.00',
      totalDiscount: '0.00',
      totalPriceBeforeTax: '2.00',
      totalPriceAfterTax: '2.00',
    });
    expect(fee.taxDetails).toMatchObject({
      taxRate: '0',
      totalTax: expect.objectContaining({ amount: '0.00' }),
    });
    // The options offered list their charges by price.
    const express = est.shippingInfo!.carrierServiceOptions[0]!.shippingOptions.find(
      (o) => o.code === 'express',
    );
    expect(express!.cost!.otherCharges).toEqual([
      {
        type: ChargeType.HANDLING_FEE,
        price: expect.objectContaining({ amount: '2.00' }),
        details: 'Handling of an express parcel',
      },
    ]);
  });

  it("gives a shipping charge its share of the shipping's tax and discount, to the cent", async () => {
    const c = visitor();
    await c.cart.addToCurrentCart({ lineItems: [item('linen-tea-towels')] });
    const taxed = await c.cart.estimateCurrentCartTotals({
      shippingAddress: NY,
      selectedShippingOption: { code: 'express' },
    });
    // 15.00 + 2.00 handling; 8.875 % of 17.00 = 1.50875 → 1.51, shared 1500:200 → 1.33 and 0.18.
    const sel = taxed.shippingInfo!.selectedCarrierServiceOption!;
    expect(amounts(sel.cost as any)).toMatchObject({ price: '17.00', totalPriceAfterTax: '18.51' });
    const fee = sel.otherCharges![0]!.cost;
    expect(amounts(fee as any)).toMatchObject({
      price: '2.00',
      totalDiscount: '0.00',
      totalPriceBeforeTax: '2.00',
      totalPriceAfterTax: '2.18',
    });
    expect(fee.taxDetails).toEqual(newYorkTax('2.00', '0.18'));
    // Free shipping takes the charge too.
    await c.cart.updateCurrentCart({ couponCode: 'FREESHIP' });
    const free = await c.cart.estimateCurrentCartTotals({
      shippingAddress: NY,
      selectedShippingOption: { code: 'express' },
    });
    expect(
      amounts(free.shippingInfo!.selectedCarrierServiceOption!.otherCharges![0]!.cost as any),
    ).toMatchObject({
      price: '2.00',
      totalDiscount: '2.00',
      totalPriceBeforeTax: '0.00',
      totalPriceAfterTax: '0.00',
    });
  });

  it('free-shipping coupon, international rates and country VAT', async () => {
    const c = visitor();
    await c.cart.addToCurrentCart({ lineItems: [item('linen-tea-towels')] });
    await c.cart.updateCurrentCart({ couponCode: 'FREESHIP' });
    const est = await c.cart.estimateCurrentCartTotals({ shippingAddress: GB });
    expect(amounts(est.priceSummary as any)).toMatchObject({
      subtotal: '18.00',
      shipping: '20.00',
      discount: '20.00',
      tax: '3.60',
      total: '21.60',
    });
    expect(est.appliedDiscounts).toEqual([
      expect.objectContaining({
        discountType: DiscountType.SHIPPING,
        coupon: expect.objectContaining({
          code: 'FREESHIP',
          amount: expect.objectContaining({ amount: '20.00' }),
        }),
      }),
    ]);
    expect(est.shippingInfo!.selectedCarrierServiceOption!.cost.totalDiscount.amount).toBe('20.00');
    expect(est.shippingInfo!.region).toEqual({ id: 'GB', name: 'GB' });
    expect(est.calculatedLineItems[0]!.pricesBreakdown.taxDetails!.rateBreakdown![0]!.jurisdictionType).toBe(
      JurisdictionType.COUNTRY,
    );
  });

  it('minimum-subtotal coupon, and a coupon that stops applying is reported, not charged', async () => {
    const c = visitor();
    const { cart: got } = await c.cart.addToCurrentCart({ lineItems: [item('linen-tea-towels', 6)] }); // 108.00
    await c.cart.updateCurrentCart({ couponCode: 'BIG15' });
    const pickup = { selectedShippingOption: { code: 'store-pickup' }, shippingAddress: NY };
    const est = await c.cart.estimateCurrentCartTotals(pickup);
    // 15 % of 108 = 16.20; 91.80 × 8.875 % = 8.14725 → 8.15.
    expect(amounts(est.priceSummary as any)).toMatchObject({
      discount: '16.20',
      tax: '8.15',
      total: '99.95',
    });
    await c.cart.updateCurrentCartLineItemQuantity([{ id: got.lineItems[0]!.id, quantity: 2 }]);
    const after = await c.cart.estimateCurrentCartTotals(pickup);
    expect(after.appliedDiscounts).toEqual([]);
    expect(after.cart.appliedDiscounts).toEqual([]);
    expect(after.calculationErrors).toEqual({
      couponCalculationError: {
        applicationError: {
          code: 'ERROR_COUPON_NOT_APPLICABLE',
          description: 'The coupon BIG15 needs a subtotal of at least 100.00',
        },
      },
    });
    expect(after.priceSummary.total.amount).toBe('39.20'); // 36.00 + 3.195 → 3.20
  });

  it('rounds exactly: half a cent goes up, never a binary floating point error', async () => {
    const c = visitor();
    await c.cart.addToCurrentCart({ lineItems: [item('linen-tea-towels', 6)] }); // 108.00
    const est = await c.cart.estimateCurrentCartTotals({
      shippingAddress: NY,
      selectedShippingOption: { code: 'store-pickup' },
    });
    // 108.00 × 8.875 % = 9.585 exactly: half away from zero gives 9.59 (108 * 0.08875 in floats is 9.584999…).
    expect(amounts(est.priceSummary as any)).toMatchObject({
      subtotal: '108.00',
      tax: '9.59',
      total: '117.59',
    });
    // Merchant discounts of 33⅓ % over three equal lines: the cents add up to the whole.
    const m = visitor();
    await m.cart.addToCurrentCart({
      lineItems: [item('linen-tea-towels'), item('gift-card'), item('dinner-plate')],
    }); // 18 + 50 + 27 = 95
    const merchant = withMerchant(emu, m, { cart });
    await merchant.cart.updateCurrentCart({ merchantDiscounts: [{ amount: '0.10' }] });
    const split = await m.cart.estimateCurrentCartTotals({ calculateTax: false, calculateShipping: false });
    const parts = split.calculatedLineItems.map((l) => l.pricesBreakdown.totalDiscount.amount);
    expect(parts).toEqual(['0.02', '0.05', '0.03']); // 1.89 / 5.26 / 2.84 tenths-of-cents → largest remainders
    expect(split.priceSummary.discount.amount).toBe('0.10');
    expect(split.priceSummary.total.amount).toBe('94.90');
  });

  it('lists carrier options with delivery slots and a store pickup with its address', async () => {
    const c = visitor();
    await c.cart.addToCurrentCart({ lineItems: [item('dinner-plate')] });
    const est = await c.cart.estimateCurrentCartTotals({ shippingAddress: NY });
    const carriers = est.shippingInfo!.carrierServiceOptions;
    expect(carriers.map((x) => x.shippingOptions.map((o) => [o.code, o.cost?.price.amount]))).toEqual([
      [
        ['standard', '5.00'],
        ['express', '15.00'],
      ],
      [['store-pickup', '0.00']],
    ]);
    const standard = carriers[0]!.shippingOptions[0]!;
    expect(standard.logistics!.deliveryTime).toBe('3-5 business days');
    const slot = standard.logistics!.deliveryTimeSlot!;
    expect(slot.from).toBeInstanceOf(Date);
    expect(slot.to).toBeInstanceOf(Date);
    expect(slot.to!.getTime()).toBeGreaterThan(slot.from!.getTime());
    const pickup = carriers[1]!.shippingOptions[0]!;
    expect(pickup.logistics!.pickupDetails).toEqual({
      address: {
        country: 'US',
        subdivision: 'US-NY',
        city: 'New York',
        postalCode: '10013',
        addressLine1: '120 Hudson Street',
        formatted: '120 Hudson Street, New York, NY 10013, US',
        location: { latitude: 40.7198, longitude: -74.0089 },
      },
      businessLocation: true,
      pickupMethod: PickupMethod.STORE_PICKUP,
    });
    // The default choice is the first option, not one the buyer requested.
    expect(est.shippingInfo!.selectedCarrierServiceOption).toMatchObject({
      code: 'standard',
      requestedShippingOption: false,
    });
    expect(est.shippingInfo!.selectedCarrierServiceOption!.logistics!.deliveryTimeSlot!.from).toBeInstanceOf(
      Date,
    );
    // The cart's own selected option is used when the request names none.
    await c.cart.updateCurrentCart({ cartInfo: { selectedShippingOption: { code: 'store-pickup' } } });
    const withPickup = await c.cart.estimateCurrentCartTotals({ shippingAddress: NY });
    expect(withPickup.shippingInfo!.selectedCarrierServiceOption!.code).toBe('store-pickup');
    expect(withPickup.priceSummary.shipping.amount).toBe('0.00');
  });

  it('switches tax and shipping off on request, uses the business address without one, collects none elsewhere', async () => {
    const c = visitor();
    await c.cart.addToCurrentCart({ lineItems: [item('linen-tea-towels')] });
    const off = await c.cart.estimateCurrentCartTotals({
      calculateTax: false,
      calculateShipping: false,
      shippingAddress: NY,
    });
    expect(amounts(off.priceSummary as any)).toMatchObject({ shipping: '0.00', tax: '0.00', total: '18.00' });
    expect(off.shippingInfo!.carrierServiceOptions).toEqual([]);
    expect(off.taxSummary!.calculationDetails).toEqual({ rateType: RateType.NO_TAX_COLLECTED });
    const none = await c.cart.estimateCurrentCartTotals({ calculateShipping: false });
    expect(none.calculatedLineItems[0]!.taxableAddress!.addressType).toBe(TaxableAddressType.BUSINESS);
    expect(none.priceSummary.tax.amount).toBe('1.60'); // 18 × 8.875 % = 1.5975
    const billing = await c.cart.estimateCurrentCartTotals({ calculateShipping: false, billingAddress: CA });
    expect(billing.calculatedLineItems[0]!.taxableAddress!.addressType).toBe(TaxableAddressType.BILLING);
    const jp = await c.cart.estimateCurrentCartTotals({ shippingAddress: JP });
    expect(amounts(jp.priceSummary as any)).toMatchObject({ shipping: '20.00', tax: '0.00', total: '38.00' });
    expect(jp.taxSummary!.calculationDetails!.rateType).toBe(RateType.NO_TAX_COLLECTED);
    // Digital goods do not ship.
    const d = visitor();
    await d.cart.addToCurrentCart({ lineItems: [item('gift-card')] });
    const digital = await d.cart.estimateCurrentCartTotals({ shippingAddress: NY });
    expect(digital.shippingInfo!.carrierServiceOptions).toEqual([]);
    expect(digital.shippingInfo!.selectedCarrierServiceOption).toBeUndefined();
    expect(digital.priceSummary.shipping.amount).toBe('0.00');
  });

  it('answers memberships it cannot honour as invalid', async () => {
    const c = visitor();
    const { cart: got } = await c.cart.addToCurrentCart({ lineItems: [item('gift-card')] });
    const est = await c.cart.estimateCurrentCartTotals({
      selectedMemberships: {
        memberships: [{ id: 'plan-1', appId: 'plans-app', lineItemIds: [got.lineItems[0]!.id] }],
      },
    });
    expect(est.membershipOptions).toEqual({
      eligibleMemberships: [],
      invalidMemberships: [
        {
          membership: { id: 'plan-1', appId: 'plans-app', lineItemIds: [got.lineItems[0]!.id] },
          reason: 'The buyer holds no such membership in the emulator',
        },
      ],
      validatedExistingMemberships: { memberships: [] },
    });
    expect(est.violations).toEqual([]);
    expect(est.additionalFees).toEqual([]);
  });

  it('refuses bad estimate input with field violations', async () => {
    const c = visitor();
    await c.cart.addToCurrentCart({ lineItems: [item('dinner-plate')] });
    const cases: Array<[Parameters<typeof c.cart.estimateCurrentCartTotals>[0], string]> = [
      [{ selectedShippingOption: { code: 'teleport' } }, 'options.selectedShippingOption.code'],
      [{ shippingAddress: { country: 'X1' } }, 'options.shippingAddress.country'],
      [
        { billingAddress: { location: { latitude: Number.POSITIVE_INFINITY } } },
        'options.billingAddress.geocode.latitude',
      ],
      [{ calculateTax: 'yes' as unknown as boolean }, 'options.calculateTax'],
      [
        { selectedMemberships: { memberships: [{ id: '', appId: 'a', lineItemIds: [] }] } },
        'options.selectedMemberships.memberships[0].id',
      ],
    ];
    for (const [input, field] of cases) {
      const e = await failure(c.cart.estimateCurrentCartTotals(input));
      expect(e, field).toBeInstanceOf(ValidationError);
      expect((e as ValidationError).violations.map((v) => v.field)).toEqual([field]);
    }
  });
});
