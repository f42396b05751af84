/**
 * The enumerations the emulator validates, pinned value by value and in order (the order shows in
 * the violation's description and `data.values`). The emulator takes them from the SDK's exported
 * constants; they are spelled out here so that a change there shows up as a failure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';

/** Measurement units a unit price may use: the spec's list without `UNSPECIFIED`. */
const UNITS = 'ML CL L CBM MG G KG MM CM M SQM OZ LB FLOZ PT QT GAL IN FT YD SQFT'.split(' ');
/** Checkout channels: every value of the platform's current-cart enum, in its order. */
const CHANNELS = (
  'UNSPECIFIED WEB POS EBAY AMAZON OTHER_PLATFORM WIX_APP_STORE WIX_INVOICES BACKOFFICE_MERCHANT WISH ' +
  'CLASS_PASS GLOBAL_E FACEBOOK ETSY TIKTOK FAIRE_COM PAYPAL_AGENTIC_CHECKOUT STRIPE_AGENTIC_CHECKOUT ' +
  'WIX_INVOICES_PLATFORM UCP_AGENTIC_CHECKOUT'
).split(' ');

const enumViolation = (field: string, values: string[]) => ({
  field,
  description: `must be one of ${values.join(', ')}`,
  violatedRule: 'INVALID_ENUM_VALUE',
  data: { values },
});

describe.each(testBackends())('validated enumerations (%s)', (backend) => {
  let emu: TestEmulator;
  let visitorToken: string;
  const post = async (path: string, body: unknown, authorization?: string) => {
    const res = await fetch(emu.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(authorization && { authorization }) },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  const product = (total: string, base: string) => ({
    product: {
      name: 'Unit price probe',
      productType: 'physical',
      priceData: { price: 1 },
      pricePerUnitData: {
        totalQuantity: 1,
        totalMeasurementUnit: total,
        baseQuantity: 1,
        baseMeasurementUnit: base,
      },
    },
  });

  beforeAll(async () => {
    emu = await startTestEmulator(backend);
    const token = await post('/oauth2/token', { clientId: emu.demo.clientId, grantType: 'anonymous' });
    visitorToken = token.body.access_token;
  });
  afterAll(() => emu?.stop());

  it('unit prices take the measurement units without UNSPECIFIED', async () => {
    const res = await post('/stores/v1/products', product('UNSPECIFIED', 'XX'), emu.demo.apiKey);
    expect(res.status).toBe(400);
    expect(res.body.details.validationError.fieldViolations).toEqual([
      enumViolation('product.pricePerUnitData.totalMeasurementUnit', UNITS),
      enumViolation('product.pricePerUnitData.baseMeasurementUnit', UNITS),
    ]);
  });

  it.each(UNITS)('unit prices accept %s', async (unit) => {
    // Comparable units pass; a mismatch is a different violation, never the enumeration's.
    const res = await post('/stores/v1/products', product(unit, unit), emu.demo.apiKey);
    expect(res.status).toBe(200);
  });

  it('checkouts take the channel types of the wire protocol', async () => {
    const res = await post('/ecom/v1/carts/current/create-checkout', { channelType: 'NOPE' }, visitorToken);
    expect(res.status).toBe(400);
    expect(res.body.details.validationError.fieldViolations).toEqual([
      enumViolation('channelType', CHANNELS),
    ]);
  });

  it.each(CHANNELS)('checkouts accept channel %s', async (channelType) => {
    // The visitor has no cart: a valid message gets as far as looking it up.
    const res = await post('/ecom/v1/carts/current/create-checkout', { channelType }, visitorToken);
    expect(res.status).toBe(404);
    expect(res.body.details.applicationError.code).toBe('OWNED_CART_NOT_FOUND');
  });
});
