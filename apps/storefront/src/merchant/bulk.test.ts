import {
  type BulkAdjust,
  type BulkResult,
  type BulkSet,
  HttpError,
  type Product,
  SystemError,
  ValidationError,
} from '@shopkit/sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyChange,
  type BulkCalls,
  type Change,
  changed,
  checkValue,
  chunks,
  failures,
  type Property,
  preview,
  sendOrSkip,
} from './bulk.ts';

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

  it('leaves a missing value missing when adjusting, and sets it when setting', () => {
    expect(changed(undefined, c({ prop: 'cost', mode: 'amount', value: 5 }))).toBeUndefined();
    expect(changed(undefined, c({ prop: 'weight', mode: 'percentage', value: 5 }))).toBeUndefined();
    expect(changed(undefined, c({ prop: 'cost', mode: 'set', value: 5 }))).toBe(5);
    expect(changed(undefined, c({ prop: 'weight', mode: 'set', value: 1.2345 }))).toBe(1.235);
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

  it('asks for a number, not for fewer decimals, when the text is not a plain decimal', () => {
    for (const t of ['1e3', '1E-2', '0x10', '+5', 'Infinity', '.', '-', '1.2.3'])
      expect(checkValue(t, 'set', 'price'), t).toBe('Enter a number such as 12.50.');
    expect(checkValue('1e3', 'percentage', 'price')).toBe('Enter a number such as 12.5.');
    expect(checkValue('.5', 'set', 'price')).toBeUndefined();
    expect(checkValue('-2.', 'amount', 'price')).toBeUndefined();
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
    // Setting gives the product a value it did not have.
    expect(
      preview({ ...dress, costAndProfitData: undefined }, c({ prop: 'cost', mode: 'set', value: 5 })),
    ).toEqual({ kind: 'ok', value: 5, text: '$5.00' });
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

describe('sendOrSkip', () => {
  const adjust = (prop: Property) => ({ prop, mode: 'amount' as const });
  const product = (id: string, over: Partial<Product> = {}) =>
    ({ id, name: `Product ${id}`, slug: id, priceData: { price: 10 }, ...over }) as Product;
  const mug = product('mug', { costAndProfitData: { itemCost: 8 }, weight: 0.38 });
  const card = product('card', { productType: 'digital' });
  const free = product('free', { priceData: { price: 0 }, costAndProfitData: { itemCost: 0 }, weight: 0 });

  it('sends the products with the value and skips, by name, those without it, each in the order chosen', () => {
    const shirt = product('shirt', { costAndProfitData: { itemCost: 12 } });
    expect(sendOrSkip([card, mug, product('hat'), shirt], adjust('cost'))).toEqual({
      ids: ['mug', 'shirt'],
      skipped: ['Product card', 'Product hat'],
    });
  });

  it('skips for want of the property changed only: a cost or a weight, not what else is missing', () => {
    expect(sendOrSkip([mug, card], adjust('price'))).toEqual({ ids: ['mug', 'card'], skipped: [] });
    expect(sendOrSkip([mug, card], adjust('cost'))).toEqual({ ids: ['mug'], skipped: ['Product card'] });
    expect(sendOrSkip([mug, card], adjust('weight'))).toEqual({ ids: ['mug'], skipped: ['Product card'] });
    // A product without a price has no value to change either.
    expect(sendOrSkip([product('odd', { priceData: undefined })], adjust('price'))).toEqual({
      ids: [],
      skipped: ['Product odd'],
    });
  });

  it('sends a value of 0: it is a value, not a missing one', () => {
    for (const prop of ['price', 'cost', 'weight'] as const)
      expect(sendOrSkip([free], adjust(prop)), prop).toEqual({ ids: ['free'], skipped: [] });
  });

  it('sends nothing when nothing is chosen or every product is skipped', () => {
    expect(sendOrSkip([], adjust('price'))).toEqual({ ids: [], skipped: [] });
    expect(sendOrSkip([card, product('hat')], adjust('weight'))).toEqual({
      ids: [],
      skipped: ['Product card', 'Product hat'],
    });
  });

  it('sends every product when setting: a missing cost or weight is set too', () => {
    for (const prop of ['price', 'cost', 'weight'] as const)
      expect(sendOrSkip([card, mug], { prop, mode: 'set' }), prop).toEqual({
        ids: ['card', 'mug'],
        skipped: [],
      });
  });

  it('skips exactly the products whose preview says skipped', () => {
    const chosen = [mug, card, free, product('hat', { weight: 1 })];
    for (const mode of ['set', 'amount', 'percentage'] as const)
      for (const prop of ['price', 'cost', 'weight'] as const) {
        const change = c({ prop, mode, value: 1 });
        const skippedInPreview = chosen.filter((p) => preview(p, change).kind === 'skip');
        expect(sendOrSkip(chosen, change).skipped, `${mode} ${prop}`).toEqual(
          skippedInPreview.map((p) => p.name),
        );
      }
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
          error: { code: 'NEGATIVE_VALUE', description: 'The price of product m would become negative' },
        },
      },
      {
        itemMetadata: {
          id: 'c',
          originalIndex: 1,
          success: false,
          error: { code: 'NEGATIVE_VALUE', description: 'The price of product c would become negative' },
        },
      },
      { itemMetadata: { id: 'k', originalIndex: 2, success: true } },
      {
        itemMetadata: {
          id: 'v',
          originalIndex: 3,
          success: false,
          error: { code: 'VALUE_TOO_LARGE', description: 'The price of product v would exceed 999999999.99' },
        },
      },
    ],
    bulkActionMetadata: { totalSuccesses: 1, totalFailures: 3, undetailedFailures: 0 },
  };
  expect(failures(r, 'price', (id) => ({ m: 'Mug', c: 'Candle', v: 'Vase' })[id] ?? id)).toEqual([
    // In the platform's words, the product's id said as `this product`.
    { why: 'The price of this product would become negative', names: ['Mug', 'Candle'] },
    { why: 'The price of this product would exceed 999999999.99', names: ['Vase'] },
  ]);
});

/** `n` product ids, `p1` to `pn`. */
const idList = (n: number) => Array.from({ length: n }, (_, i) => `p${i + 1}`);

/** A platform answer for one call: every product updated but those in `failed`, with their error. */
function answer(
  ids: string[],
  failed: Record<string, { code: string; description: string }> = {},
): BulkResult {
  const results = ids.map((id, originalIndex) =>
    failed[id]
      ? { itemMetadata: { id, originalIndex, success: false, error: failed[id] } }
      : { itemMetadata: { id, originalIndex, success: true } },
  );
  const ok = results.filter((r) => r.itemMetadata.success).length;
  return {
    results,
    bulkActionMetadata: { totalSuccesses: ok, totalFailures: ids.length - ok, undetailedFailures: 0 },
  };
}

/** Fake bulk calls that record what was sent; the `n`th call (from 0) answers `reply(ids, n)`. */
function fakeCalls(
  reply: (ids: string[], n: number) => BulkResult | Promise<BulkResult> = (ids) => answer(ids),
) {
  const sent: { kind: 'update' | 'adjust'; ids: string[]; body: BulkSet | BulkAdjust }[] = [];
  const send = async (kind: 'update' | 'adjust', ids: string[], body: BulkSet | BulkAdjust) => {
    sent.push({ kind, ids, body });
    return reply(ids, sent.length - 1);
  };
  const calls: BulkCalls = {
    update: (ids, set) => send('update', ids, set),
    adjust: (adjust, ids) => send('adjust', ids, adjust),
  };
  return { calls, sent };
}

const name = (id: string) => `Product ${id.slice(1)}`;
const offline = () =>
  new SystemError('System error occurred: the network request failed', {
    code: 'NETWORK_ERROR',
    description: 'the network request failed',
  });

/** Numbers of ids and the sizes of the runs they are sent in. */
const SPLITS: [number, number[]][] = [
  [0, []],
  [1, [1]],
  [100, [100]],
  [101, [100, 1]],
  [250, [100, 100, 50]],
];

describe('chunks', () => {
  it.each(SPLITS)('splits %i ids into runs of at most 100, in order', (n, sizes) => {
    const ids = idList(n);
    const runs = chunks(ids);
    expect(runs.map((r) => r.length)).toEqual(sizes);
    expect(runs.flat()).toEqual(ids);
  });
});

describe('applyChange', () => {
  it.each(SPLITS)('sends %i ids in calls of at most 100 and joins the answers in order', async (n, sizes) => {
    const ids = idList(n);
    const { calls, sent } = fakeCalls();
    const r = await applyChange(calls, ids, c({ value: 1 }));
    expect(sent.map((s) => s.ids.length)).toEqual(sizes);
    expect(sent.flatMap((s) => s.ids)).toEqual(ids);
    expect(r.results.map((x) => x.itemMetadata.id)).toEqual(ids);
    expect(r.results.map((x) => x.itemMetadata.originalIndex)).toEqual(ids.map((_, i) => i));
    expect(r.bulkActionMetadata).toEqual({ totalSuccesses: n, totalFailures: 0, undetailedFailures: 0 });
  });

  it('sends a set, an amount or a percentage as the platform takes them', async () => {
    const { calls, sent } = fakeCalls();
    await applyChange(calls, ['a'], c({ prop: 'cost', mode: 'set', value: 5 }));
    await applyChange(calls, ['a'], c({ mode: 'amount', value: -2 }));
    await applyChange(calls, ['a'], c({ prop: 'weight', mode: 'percentage', value: 10, round: true }));
    expect(sent.map(({ kind, body }) => ({ kind, body }))).toEqual([
      { kind: 'update', body: { cost: 5 } },
      { kind: 'adjust', body: { price: { amount: -2 } } },
      { kind: 'adjust', body: { weight: { percentage: { rate: 10, roundToInt: true } } } },
    ]);
  });

  it('keeps each call’s failures with their product, index and reason, and adds up the totals', async () => {
    const ids = idList(250);
    const negative = { code: 'NEGATIVE_VALUE', description: 'The price would become negative' };
    const { calls } = fakeCalls((chunk) => answer(chunk, { p2: negative, p104: negative, p250: negative }));
    const r = await applyChange(calls, ids, c({ value: -30 }));
    expect(r.bulkActionMetadata).toEqual({ totalSuccesses: 247, totalFailures: 3, undetailedFailures: 0 });
    expect(r.results.filter((x) => !x.itemMetadata.success).map((x) => x.itemMetadata)).toEqual([
      { id: 'p2', originalIndex: 1, success: false, error: negative },
      { id: 'p104', originalIndex: 103, success: false, error: negative },
      { id: 'p250', originalIndex: 249, success: false, error: negative },
    ]);
    expect(failures(r, 'price', name)).toEqual([
      { why: 'The price would become negative', names: ['Product 2', 'Product 104', 'Product 250'] },
    ]);
  });

  it('names a failed product the platform answered without its id, from what was sent', async () => {
    const { calls } = fakeCalls((chunk, n) => {
      const r = answer(chunk, n === 1 ? { p101: { code: 'PRODUCT_NOT_FOUND', description: '' } } : {});
      delete r.results[0]!.itemMetadata.id;
      return r;
    });
    const r = await applyChange(calls, idList(101), c({ value: 1 }));
    expect(failures(r, 'price', name)).toEqual([
      { why: 'the product no longer exists', names: ['Product 101'] },
    ]);
  });

  it('names every product of a call that got no answer mid-way, reports none of them done, and goes on', async () => {
    const ids = idList(250);
    const { calls, sent } = fakeCalls((chunk, n) => {
      if (n === 1) throw offline();
      return answer(chunk);
    });
    const r = await applyChange(calls, ids, c({ value: 1 }));
    expect(sent.map((s) => s.ids.length)).toEqual([100, 100, 50]);
    expect(r.bulkActionMetadata).toEqual({ totalSuccesses: 150, totalFailures: 100, undetailedFailures: 0 });
    const done = r.results.filter((x) => x.itemMetadata.success).map((x) => x.itemMetadata.id);
    expect(done).toEqual([...ids.slice(0, 100), ...ids.slice(200)]);
    expect(r.results.map((x) => x.itemMetadata.originalIndex)).toEqual(ids.map((_, i) => i));
    // What the merchant sees: each product of that call by name, and that it may or may not have changed.
    expect(failures(r, 'price', name)).toEqual([
      {
        why: 'no answer came back, so the change may or may not have been made: check before applying it again',
        names: ids.slice(100, 200).map(name),
      },
    ]);
  });

  it('says a call refused mid-way changed nothing, in words for people rather than the SDK’s', async () => {
    const { calls } = fakeCalls((chunk, n) => {
      if (n === 1)
        throw new HttpError('Too Many Requests', {
          status: 429,
          code: 'TOO_MANY_REQUESTS',
          description: 'Too Many Requests',
        });
      if (n === 2)
        throw new SystemError('System error occurred, request-id: 1', {
          status: 500,
          code: 'UNKNOWN',
          description: '',
        });
      return answer(chunk);
    });
    const r = await applyChange(calls, idList(201), c({ value: 1 }));
    expect(failures(r, 'price', name)).toEqual([
      {
        why: 'not changed: too many requests. Please wait a moment and try again',
        names: idList(201).slice(100, 200).map(name),
      },
      {
        why: 'the platform failed, so the change may or may not have been made: check before applying it again',
        names: ['Product 201'],
      },
    ]);
  });

  it('throws when the first call is refused, and sends no other', async () => {
    const refusal = new ValidationError([{ field: 'adjust.price.amount', description: 'is too large' }], {
      status: 400,
    });
    const { calls, sent } = fakeCalls(() => {
      throw refusal;
    });
    await expect(applyChange(calls, idList(250), c({ value: 1e12 }))).rejects.toBe(refusal);
    expect(sent).toHaveLength(1);
  });

  it('does not say "nothing changed" when the first call got no answer: its products may have changed', async () => {
    const { calls, sent } = fakeCalls((chunk, n) => {
      if (n === 0) throw offline();
      return answer(chunk);
    });
    const r = await applyChange(calls, idList(101), c({ value: 1 }));
    expect(sent).toHaveLength(2);
    expect(r.bulkActionMetadata).toEqual({ totalSuccesses: 1, totalFailures: 100, undetailedFailures: 0 });
    expect(failures(r, 'price', name)[0]?.names).toHaveLength(100);
  });
});
