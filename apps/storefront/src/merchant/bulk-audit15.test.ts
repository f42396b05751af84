import type { BulkResult } from '@shopkit/sdk';
import { describe, expect, it } from 'vitest';
import { failures } from './bulk.ts';

const names: Record<string, string> = { m1: 'Stoneware Mug', c1: 'Beeswax Candle', v1: 'Vase' };
const name = (id: string) => names[id] ?? id;

/** A bulk answer in which every item failed with its error. */
const failed = (items: [string, { code: string; description: string }][]): BulkResult => ({
  results: items.map(([id, error], originalIndex) => ({
    itemMetadata: { id, originalIndex, success: false, error },
  })),
  bulkActionMetadata: { totalSuccesses: 0, totalFailures: items.length, undetailedFailures: 0 },
});

describe('failures (the emulator’s own words)', () => {
  it('says a product deleted since it was ticked no longer exists (it said “Product with id this product not found”)', () => {
    const r = failed([['c1', { code: 'PRODUCT_NOT_FOUND', description: 'Product with id "c1" not found' }]]);
    expect(failures(r, 'price', name)).toEqual([
      { why: 'the product no longer exists', names: ['Beeswax Candle'] },
    ]);
  });

  it('says “This product” where the platform’s sentence starts with the product (it said “The this product”)', () => {
    const r = failed([
      ['m1', { code: 'INTERNAL_ERROR', description: 'The product m1 could not be changed' }],
      ['v1', { code: 'VALUE_NOT_SET', description: 'Product v1 has no cost to adjust: set one first' }],
      ['c1', { code: 'NEGATIVE_VALUE', description: 'The cost of product c1 would become negative' }],
    ]);
    expect(failures(r, 'cost', name)).toEqual([
      { why: 'This product could not be changed', names: ['Stoneware Mug'] },
      { why: 'This product has no cost to adjust: set one first', names: ['Vase'] },
      { why: 'The cost of this product would become negative', names: ['Beeswax Candle'] },
    ]);
  });
});
