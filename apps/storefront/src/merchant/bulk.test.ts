import type { BulkResult, Product } from '@shopkit/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Change, changed, checkValue, failures, preview } from './bulk.ts';

const c = (over: Partial<Change>): Change => ({
  prop: 'price',
  mode: 'amount',
  value: 0,
  round: false,
  ...over,
});

describe('changed', () => {
  it('keeps the platform’s units: cents for money, grams for weight', () => {
    expect(changed(0.32, c({ prop: 'weight', mode: 'percentage', value: 10 }))).toBe(0.352);
    expect(changed(0.045, c({ prop: 'weight', mode: 'percentage', value: 10 }))).toBe(0.05); // 49.5 g → 50 g
    expect(changed(19.99, c({ mode: 'percentage', value: 12.5 }))).toBe(22.49);
    expect(changed(0.1, c({ mode: 'amount', value: 0.2 }))).toBe(0.3);
    expect(changed(24, c({ mode: 'amount', value: -30 }))).toBe(-6);
  });

  it('rounds half away from zero, to whole units when asked', () => {
    expect(changed(39, c({ mode: 'percentage', value: 10, round: true }))).toBe(43);
    expect(changed(25, c({ mode: 'percentage', value: 10, round: true }))).toBe(28); // 27.5 → 28
    expect(changed(25, c({ mode: 'percentage', value: -10, round: true }))).toBe(23); // 22.5 → 23
  });

  it('leaves a missing value missing, even when setting', () => {
    expect(changed(undefined, c({ prop: 'cost', mode: 'set', value: 5 }))).toBeUndefined();
  });

  it('adds an amount exactly for any cents', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e9 }), fc.integer({ min: -1e9, max: 1e9 }), (a, b) => {
        expect(changed(a / 100, c({ mode: 'amount', value: b / 100 }))).toBe((a + b) / 100);
      }),
    );
  });
});

describe('checkValue', () => {
  it('refuses what the platform would refuse for the whole request', () => {
    expect(checkValue('', 'set', 'price')).toBe('Enter a value.');
    expect(checkValue('1.234', 'set', 'price')).toBe('Use at most 2 decimal places.');
    expect(checkValue('1.234', 'set', 'weight')).toBeUndefined();
    expect(checkValue('-1', 'set', 'price')).toBe('A price cannot be negative.');
    expect(checkValue('-101', 'percentage', 'price')).toMatch(/more than 100/);
    expect(checkValue('-30', 'amount', 'price')).toBeUndefined();
  });
});

const dress = {
  id: 'd',
  name: 'Dress',
  slug: 'dress',
  priceData: { price: 120 },
  variants: [
    { id: 'a', choices: { Color: 'Clay' }, variant: { priceData: { price: 120 } } },
    { id: 'b', choices: { Color: 'Navy' }, variant: { priceData: { price: 126 } } },
  ],
} as Product;

describe('preview', () => {
  it('says when a product is skipped or refused instead of showing a value', () => {
    expect(preview({ ...dress, costAndProfitData: undefined }, c({ prop: 'cost', value: 5 }))).toEqual({
      kind: 'skip',
      text: '— no cost, skipped',
    });
    expect(preview(dress, c({ value: -121 })).kind).toBe('refuse');
    // A variant's own price going below zero refuses the product too.
    expect(preview(dress, c({ value: -122 })).kind).toBe('refuse');
    expect(preview({ ...dress, variants: [] }, c({ value: -120 }))).toMatchObject({ kind: 'ok', value: 0 });
  });

  it('warns that setting replaces variants’ own values, and shows adjusted ones', () => {
    expect(preview(dress, c({ mode: 'set', value: 100 }))).toEqual({
      kind: 'ok',
      value: 100,
      text: '$100.00',
      note: 'replaces the variants’ own prices: Navy $126.00',
    });
    expect(preview(dress, c({ value: 5 }))).toMatchObject({
      note: 'variants’ own prices too: Navy $131.00',
    });
  });
});

it('groups failures by reason, with product names', () => {
  const r: BulkResult = {
    results: [
      {
        itemMetadata: {
          id: 'm',
          originalIndex: 0,
          success: false,
          error: { code: 'NEGATIVE_VALUE', description: 'x' },
        },
      },
      {
        itemMetadata: {
          id: 'c',
          originalIndex: 1,
          success: false,
          error: { code: 'NEGATIVE_VALUE', description: 'y' },
        },
      },
      { itemMetadata: { id: 'k', originalIndex: 2, success: true } },
    ],
    bulkActionMetadata: { totalSuccesses: 1, totalFailures: 2, undetailedFailures: 0 },
  };
  expect(failures(r, 'price', (id) => ({ m: 'Mug', c: 'Candle' })[id] ?? id)).toEqual([
    { why: 'the price would go below zero', names: ['Mug', 'Candle'] },
  ]);
});
