import type { Product, Variant } from '@shopkit/sdk';
import { describe, expect, it } from 'vitest';
import { changes, decimal, droppedVariants, rebase, settle, toDraft, variantStock } from './draft.ts';

const giftCard = {
  id: 'g',
  name: 'Gift Card',
  slug: 'gift-card',
  productType: 'digital',
  priceData: { price: 50 },
  sku: 'GC-50',
  ribbon: 'Sale',
  visible: true,
} as Product;

describe('changes', () => {
  it('sends only what changed, and never the product type unless it was changed', () => {
    const base = toDraft(giftCard);
    expect(changes({ ...base, description: 'Any amount.' }, base)).toEqual({
      input: { description: 'Any amount.' },
      removeOptions: false,
      problems: {},
    });
    expect(changes({ ...base, productType: 'physical' }, base).input).toEqual({ productType: 'physical' });
  });

  it('sends a cleared text field as empty, which clears it', () => {
    const base = toDraft(giftCard);
    expect(changes({ ...base, sku: '', ribbon: ' ' }, base).input).toEqual({ sku: '', ribbon: '' });
  });

  it('refuses an empty price and a cleared cost instead of sending 0 or nothing', () => {
    const base = toDraft({ ...giftCard, costAndProfitData: { itemCost: 10 } });
    const r = changes({ ...base, price: '', cost: '' }, base);
    expect(r.input).toEqual({});
    expect(Object.keys(r.problems)).toEqual(['price', 'cost']);
    expect(changes({ ...base, price: '1.234' }, base).problems.price).toMatch(/12.50/);
  });

  it('removes options when their text is emptied, and refuses a half-coloured option', () => {
    const shirt = {
      ...giftCard,
      productOptions: [{ name: 'Size', choices: [{ description: 'S', value: 'S' }] }],
    };
    const base = toDraft(shirt);
    expect(changes({ ...base, options: '' }, base)).toMatchObject({ input: {}, removeOptions: true });
    expect(changes({ ...base, options: 'Color: Red #ff0000, Blue' }, base).problems.options).toMatch(/Blue/);
  });

  it('creates with every filled field and the type', () => {
    const draft = { ...toDraft(), name: 'Scarf', price: '39', options: 'Size: S' };
    expect(changes(draft).input).toEqual({
      name: 'Scarf',
      productType: 'physical',
      visible: true,
      priceData: { price: 39 },
      productOptions: [
        { name: 'Size', optionType: 'drop_down', choices: [{ description: 'S', value: 'S' }] },
      ],
      manageVariants: true,
    });
  });
});

it('rebase keeps edits and takes everything else from what is stored', () => {
  const base = toDraft(giftCard);
  const stored = toDraft({ ...giftCard, ribbon: undefined, name: 'Gift Card (any amount)' });
  const draft = { ...base, description: 'typed' };
  expect(rebase(draft, base, stored)).toEqual({ ...stored, description: 'typed' });
});

it('droppedVariants names the variants new options would delete', () => {
  const p = {
    ...giftCard,
    productOptions: [
      {
        name: 'Size',
        choices: [
          { value: 'S', description: 'S' },
          { value: 'M', description: 'M' },
        ],
      },
    ],
    variants: [
      { id: '1', choices: { Size: 'S' } },
      { id: '2', choices: { Size: 'M' } },
    ],
  } as Product;
  // M removed (S, M → S); a choice renamed in place keeps its variants (see renames.test.ts).
  expect(droppedVariants(p, [{ name: 'Size', choices: [{ description: 'S' }] }]).map((v) => v.id)).toEqual([
    '2',
  ]);
});

describe('settle', () => {
  it('shows what is stored for the fields saved, so a later removal empties them, and keeps newer edits', () => {
    const before = toDraft();
    const sent = { ...before, name: 'Scarf', options: 'Size: S,M', ribbon: ' Sale ', description: 'Warm' };
    const stored = { ...sent, options: 'Size: S, M', ribbon: 'Sale' };
    // Edited again while the save was on its way: that edit stays.
    const now = settle({ ...sent, description: 'Warmer' }, sent, stored);
    expect(now).toEqual({ ...stored, description: 'Warmer' });
    // The options removed afterwards: the box follows, as for any field that is not an edit.
    const removed = { ...stored, options: '' };
    expect(rebase(now, stored, removed).options).toBe('');
  });
});

describe('decimal', () => {
  it('reads digits with at most the given decimals, ignoring spaces around them', () => {
    expect(decimal('12', 2)).toBe(12);
    expect(decimal(' 12.5 ', 2)).toBe(12.5);
    expect(decimal('12.50', 2)).toBe(12.5);
    expect(decimal('12.', 2)).toBe(12);
    expect(decimal('0', 2)).toBe(0);
    expect(decimal('1.234', 3)).toBe(1.234);
  });

  it('is undefined for empty text', () => {
    expect(decimal('', 2)).toBeUndefined();
    expect(decimal('   ', 2)).toBeUndefined();
  });

  it('is null for more decimals than the places (a variant price of 3 decimals, as a product price), or unreadable text', () => {
    for (const text of ['1.234', '0.001', '-1', '+1', '1e3', '1,5', 'abc', 'Infinity', '.5', '1.2.3'])
      expect(decimal(text, 2), text).toBeNull();
    expect(decimal('1.5', 0)).toBeNull();
  });
});

describe('variantStock', () => {
  const variant = (id: string, stock?: Variant['stock']): Variant => ({ id, choices: { Size: id }, stock });

  it('adds up the quantities of the variants that track their stock', () => {
    expect(
      variantStock([
        variant('S', { trackQuantity: true, quantity: 4, inStock: true }),
        variant('M', { trackQuantity: true, quantity: 10, inStock: true }),
        variant('L', { trackQuantity: true, quantity: 0, inStock: false }),
      ]),
    ).toBe(14);
  });

  it('counts a tracked variant without a quantity as none left', () => {
    expect(
      variantStock([
        variant('S', { trackQuantity: true }),
        variant('M', { trackQuantity: true, quantity: 3 }),
      ]),
    ).toBe(3);
    expect(variantStock([variant('S', { trackQuantity: true })])).toBe(0);
  });

  it('leaves out untracked variants, even one that carries a quantity', () => {
    expect(
      variantStock([
        variant('S', { trackQuantity: true, quantity: 2 }),
        variant('M', { trackQuantity: false, quantity: 50, inStock: true }),
        variant('L'),
      ]),
    ).toBe(2);
  });

  it('is undefined when no variant tracks its stock, or there are no variants', () => {
    expect(
      variantStock([variant('S', { trackQuantity: false, inStock: true }), variant('M', { inStock: true })]),
    ).toBeUndefined();
    expect(variantStock([variant('S')])).toBeUndefined();
    expect(variantStock([])).toBeUndefined();
  });
});
