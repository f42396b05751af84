import { describe, expect, it } from 'vitest';
import * as commerce from './commerce.ts';

describe('commerce enumerations (spec 3)', () => {
  it('are frozen objects whose keys are their values', () => {
    for (const [name, value] of Object.entries(commerce)) {
      if (typeof value === 'string') continue; // STORES_APP_ID
      expect(Object.isFrozen(value), name).toBe(true);
      for (const [k, v] of Object.entries(value)) expect(v).toBe(k);
    }
  });

  it('hold exactly the values of the spec', () => {
    const values = (e: object) => Object.keys(e);
    expect(values(commerce.DescriptionLineType)).toEqual(['UNRECOGNISED', 'PLAIN_TEXT', 'COLOR']);
    expect(values(commerce.ItemAvailabilityStatus)).toEqual([
      'AVAILABLE',
      'NOT_FOUND',
      'NOT_AVAILABLE',
      'PARTIALLY_AVAILABLE',
    ]);
    expect(values(commerce.ItemTypePreset)).toEqual([
      'UNRECOGNISED',
      'PHYSICAL',
      'DIGITAL',
      'GIFT_CARD',
      'SERVICE',
    ]);
    expect(values(commerce.SubscriptionFrequency)).toEqual(['UNDEFINED', 'DAY', 'WEEK', 'MONTH', 'YEAR']);
    expect(values(commerce.FileType)).toHaveLength(6);
    expect(values(commerce.PaymentOptionType)).toEqual([
      'FULL_PAYMENT_ONLINE',
      'FULL_PAYMENT_OFFLINE',
      'MEMBERSHIP',
      'DEPOSIT_ONLINE',
      'MEMBERSHIP_OFFLINE',
    ]);
    expect(values(commerce.TaxableAddressType)).toEqual([
      'UNKNOWN_TAXABLE_ADDRESS',
      'BUSINESS',
      'BILLING',
      'SHIPPING',
    ]);
    expect(values(commerce.WeightUnit)).toEqual(['UNSPECIFIED_WEIGHT_UNIT', 'KG', 'LB']);
    expect(values(commerce.VatType)).toEqual(['UNSPECIFIED', 'CPF', 'CNPJ']);
    expect(values(commerce.JurisdictionType)).toEqual([
      'UNDEFINED',
      'COUNTRY',
      'STATE',
      'COUNTY',
      'CITY',
      'SPECIAL',
    ]);
    expect(values(commerce.RateType)).toEqual([
      'NO_TAX_COLLECTED',
      'MANUAL_RATE',
      'AUTO_RATE',
      'FALLBACK_RATE',
    ]);
    expect(values(commerce.ManualCalculationReason)).toEqual([
      'GLOBAL_SETTING_TO_MANUAL',
      'REGION_SETTING_TO_MANUAL',
    ]);
    expect(values(commerce.FallbackReason)).toEqual(['AUTO_TAX_FAILED', 'AUTO_TAX_DEACTIVATED']);
    expect(values(commerce.PickupMethod)).toEqual(['UNKNOWN_METHOD', 'STORE_PICKUP', 'PICKUP_POINT']);
    expect(values(commerce.ChargeType)).toEqual(['HANDLING_FEE', 'INSURANCE']);
    expect(values(commerce.DiscountType)).toEqual(['GLOBAL', 'SPECIFIC_ITEMS', 'SHIPPING']);
    expect(values(commerce.RuleType)).toHaveLength(20);
    expect(values(commerce.Severity)).toEqual(['WARNING', 'ERROR']);
    expect(values(commerce.SuggestedFix)).toEqual(['UNKNOWN_SUGGESTED_FIX', 'REMOVE_LINE_ITEM']);
    // The platform's current-cart enum, value by value: the emulator accepts exactly these.
    expect(values(commerce.ChannelType)).toEqual([
      'UNSPECIFIED',
      'WEB',
      'POS',
      'EBAY',
      'AMAZON',
      'OTHER_PLATFORM',
      'WIX_APP_STORE',
      'WIX_INVOICES',
      'BACKOFFICE_MERCHANT',
      'WISH',
      'CLASS_PASS',
      'GLOBAL_E',
      'FACEBOOK',
      'ETSY',
      'TIKTOK',
      'FAIRE_COM',
      'PAYPAL_AGENTIC_CHECKOUT',
      'STRIPE_AGENTIC_CHECKOUT',
      'WIX_INVOICES_PLATFORM',
      'UCP_AGENTIC_CHECKOUT',
    ]);
    expect(values(commerce.IdentityType)).toEqual([
      'UNKNOWN',
      'ANONYMOUS_VISITOR',
      'MEMBER',
      'WIX_USER',
      'APP',
    ]);
  });
});
