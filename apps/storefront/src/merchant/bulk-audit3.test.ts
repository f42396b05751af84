import { ApplicationError, type BulkResult, SystemError, ValidationError } from '@shopkit/sdk';
import { describe, expect, it } from 'vitest';
import { OFFLINE } from '../errors.ts';
import { applyChange, type BulkCalls, type Change, failures, whyRefused } from './bulk.ts';

const names: Record<string, string> = {
  m1: 'Stoneware Mug',
  c1: 'Beeswax Candle',
  v1: 'Vase',
  g1: 'Gift Card',
};
const name = (id: string) => names[id] ?? id;

/** A bulk answer: `ok` updated, every other item failed with its error. */
function answer(
  items: [string, { code: string; description: string; data?: Record<string, unknown> } | null][],
): BulkResult {
  const results = items.map(([id, error], originalIndex) =>
    error
      ? { itemMetadata: { id, originalIndex, success: false, error } }
      : { itemMetadata: { id, originalIndex, success: true } },
  );
  const ok = items.filter(([, e]) => !e).length;
  return {
    results,
    bulkActionMetadata: { totalSuccesses: ok, totalFailures: items.length - ok, undetailedFailures: 0 },
  };
}

const change: Change = { prop: 'price', mode: 'amount', value: -30, round: false };

describe('failures', () => {
  it('says each failed product’s reason in the platform’s words, the product named rather than its id', () => {
    const r = answer([
      ['m1', { code: 'NEGATIVE_VALUE', description: 'The price of product m1 would become negative' }],
      ['g1', null],
      ['c1', { code: 'NEGATIVE_VALUE', description: 'The price of product c1 would become negative' }],
      [
        'v1',
        {
          code: 'VALUE_TOO_LARGE',
          description: 'The price of product v1 would exceed 999999999.99',
          data: {},
        },
      ],
    ]);
    expect(failures(r, 'price', name)).toEqual([
      { why: 'The price of this product would become negative', names: ['Stoneware Mug', 'Beeswax Candle'] },
      { why: 'The price of this product would exceed 999999999.99', names: ['Vase'] },
    ]);
  });

  it('says only the id standing as a word of its own as “this product”, not letters of other words', () => {
    const r = answer([
      ['e', { code: 'NEGATIVE_VALUE', description: 'The price of product e would become negative.' }],
    ]);
    expect(failures(r, 'price', () => 'Egg Cup')).toEqual([
      { why: 'The price of this product would become negative', names: ['Egg Cup'] },
    ]);
  });

  it('says a reason of the console’s own only when the platform gave no words', () => {
    const r = answer([
      ['m1', { code: 'NEGATIVE_VALUE', description: '' }],
      ['c1', { code: 'PRODUCT_NOT_FOUND', description: ' ' }],
    ]);
    expect(failures(r, 'cost', name)).toEqual([
      { why: 'the cost would go below zero', names: ['Stoneware Mug'] },
      { why: 'the product no longer exists', names: ['Beeswax Candle'] },
    ]);
  });

  it('quotes the platform’s refusal of a later call for each of its products', async () => {
    const ids = Array.from({ length: 101 }, (_, i) => (i === 100 ? 'v1' : `p${i}`));
    const calls: BulkCalls = {
      update: async () => {
        throw new Error('not used');
      },
      adjust: async (_, chunk) => {
        if (chunk[0] === 'v1')
          throw new ValidationError([{ field: 'ids[0]', description: 'must name a product of this store' }], {
            status: 400,
          });
        return answer(chunk.map((id) => [id, null]));
      },
    };
    const r = await applyChange(calls, ids, change);
    expect(failures(r, 'price', name)).toEqual([
      {
        why: 'not changed: the platform refused it: “ids[0] must name a product of this store”',
        names: ['Vase'],
      },
    ]);
  });
});

describe('whyRefused', () => {
  it('puts the platform’s refusal of the value beside the value, in its words', () => {
    const e = new ValidationError(
      [{ field: 'set.price', description: 'must be less than or equal to 999999999.99' }],
      { status: 400 },
    );
    expect(whyRefused(e)).toEqual({ value: 'Must be less than or equal to 999999999.99.' });
  });

  it('quotes any other refusal of the whole change, saying nothing was changed', () => {
    const e = new ValidationError([{ field: 'ids[1]', description: 'repeats ids[0]' }], { status: 400 });
    expect(whyRefused(e)).toEqual({
      text: 'Nothing was changed: the platform refused it: “ids[1] repeats ids[0]”.',
    });
    const app = new ApplicationError('The store is read-only during the migration', {
      status: 409,
      code: 'READ_ONLY',
      description: 'The store is read-only during the migration',
    });
    expect(whyRefused(app)).toEqual({
      text: 'Nothing was changed: The store is read-only during the migration.',
    });
    const offline = new SystemError('System error occurred: the network request failed', {
      code: 'NETWORK_ERROR',
      description: 'the network request failed',
    });
    expect(whyRefused(offline)).toEqual({ text: `Nothing was changed: ${OFFLINE}` });
  });
});
