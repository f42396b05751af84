import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmulator, type EmulatorInstance } from '../../app.ts';
import { DEFAULT_VARIANT_ID, lookupCatalogItem, STORE_CURRENCY } from './lookup.ts';
import { demoProductId } from './seed.ts';

describe('lookupCatalogItem', () => {
  let inst: EmulatorInstance;
  beforeAll(async () => {
    inst = await createEmulator({ log: () => {} });
    inst.setPublicUrl('http://127.0.0.1:4999');
  });
  afterAll(() => inst?.close());
  const lookup = (slug: string, opts?: { variantId?: string; choices?: Record<string, string> }) =>
    lookupCatalogItem(inst.emu, inst.emu.db, demoProductId(slug), opts);

  it('resolves a product without options to its default variant', async () => {
    const item = await lookup('dinner-plate');
    expect(item).toMatchObject({
      productId: demoProductId('dinner-plate'),
      variantId: DEFAULT_VARIANT_ID,
      name: 'Stoneware Dinner Plate',
      slug: 'dinner-plate',
      visible: true,
      productType: 'physical',
      price: '27.00',
      fullPrice: '32.00',
      currency: STORE_CURRENCY,
      sku: 'DP',
      weight: 0.9,
      options: [],
      inStock: true,
      quantityAvailable: 40,
    });
    expect(item!.image).toEqual({
      id: 'dinner-plate.svg',
      url: 'http://127.0.0.1:4999/media/dinner-plate.svg',
      width: 800,
      height: 800,
      altText: 'Stoneware Dinner Plate',
    });
    expect(await lookup('dinner-plate', { variantId: DEFAULT_VARIANT_ID })).toEqual(item);
  });

  it('resolves choices to the variant, its own price, colour code, choice image and stock', async () => {
    const item = await lookup('linen-shirt', { choices: { Size: 'XL', Color: 'Sand' } });
    expect(item).toMatchObject({
      price: '72.00',
      fullPrice: '72.00',
      sku: 'LS-XL-Sand',
      options: [
        { name: 'Size', choice: 'XL' },
        { name: 'Color', choice: 'Sand', colorCode: '#d8c3a5' },
      ],
      inStock: false,
      quantityAvailable: 0,
    });
    expect(item!.image!.id).toBe('linen-shirt-sand.svg');
    const byId = await lookup('linen-shirt', { variantId: item!.variantId });
    expect(byId).toEqual(item);
  });

  it('applies percentage discounts exactly and reports untracked stock as null', async () => {
    expect(await lookup('wool-beanie', { choices: { Color: 'Rust' } })).toMatchObject({
      price: '19.60',
      fullPrice: '28.00',
    });
    expect(await lookup('olive-wood-spoon')).toMatchObject({ inStock: false, quantityAvailable: null });
    expect(await lookup('gift-card')).toMatchObject({ productType: 'digital' });
    expect(await lookup('enamel-pitcher')).toMatchObject({ visible: false });
  });

  it('returns null for unknown products, variants and incomplete or unknown choices', async () => {
    expect(await lookupCatalogItem(inst.emu, inst.emu.db, 'nope')).toBeNull();
    expect(await lookup('linen-shirt')).toBeNull();
    expect(await lookup('linen-shirt', { choices: { Size: 'S' } })).toBeNull();
    expect(await lookup('linen-shirt', { choices: { Size: 'S', Color: 'Purple' } })).toBeNull();
    expect(await lookup('linen-shirt', { choices: { Size: 'S', Colour: 'Sand' } })).toBeNull();
    expect(await lookup('linen-shirt', { variantId: 'missing' })).toBeNull();
  });
});
