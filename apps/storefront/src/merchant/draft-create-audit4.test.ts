/**
 * A new product is created from the checked draft: `changes` gives a `NewProduct` (name, type and
 * price, which a create requires) exactly when the draft can be sent, and none for a stored product.
 */
import type { NewProduct, Product } from '@shopkit/sdk';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { changes, toDraft } from './draft.ts';

describe('changes for a new product', () => {
  it('gives a create input with the required fields from the checked draft', () => {
    const draft = {
      ...toDraft(),
      name: ' Scarf ',
      productType: 'digital' as const,
      price: '39.50',
      sku: 'SC',
    };
    const r = changes(draft);
    expect(r.problems).toEqual({});
    expect(r.create).toEqual({
      ...r.input,
      name: 'Scarf',
      productType: 'digital',
      priceData: { price: 39.5 },
    });
    expect(r.create).toMatchObject({ sku: 'SC', visible: true });
    expectTypeOf(r.create).toEqualTypeOf<NewProduct | undefined>();
  });

  it('a price of 0 is a price', () => {
    expect(changes({ ...toDraft(), name: 'Free', price: '0' }).create?.priceData).toEqual({ price: 0 });
  });

  it('gives none while the draft has problems: nothing is sent', () => {
    expect(changes({ ...toDraft(), price: '5' }).create).toBeUndefined();
    expect(changes({ ...toDraft(), name: 'Scarf' }).create).toBeUndefined();
    expect(changes({ ...toDraft(), name: 'Scarf', price: '1.234' }).create).toBeUndefined();
    // Another field's problem stops the save too.
    expect(changes({ ...toDraft(), name: 'Scarf', price: '5', weight: 'heavy' }).create).toBeUndefined();
  });

  it('gives none for a stored product: a save of it is an update', () => {
    const stored = toDraft({ id: 'p', name: 'Mug', slug: 'mug', priceData: { price: 9 } } as Product);
    const r = changes({ ...stored, name: 'Big mug' }, stored);
    expect(r.input).toEqual({ name: 'Big mug' });
    expect(r.create).toBeUndefined();
  });
});
