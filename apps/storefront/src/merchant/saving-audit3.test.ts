import { SystemError, ValidationError } from '@shopkit/sdk';
import { describe, expect, it } from 'vitest';
import { OFFLINE } from '../errors.ts';
import {
  CREATED_NOT_LOADED,
  PartlySaved,
  partlySaved,
  SAVED_NOT_RELOADED,
  savedLabels,
  saveFailure,
} from './saving.ts';

const offline = () =>
  new SystemError('System error occurred: the network request failed', {
    code: 'NETWORK_ERROR',
    description: 'the network request failed',
  });

describe('savedLabels', () => {
  it('names the fields a save sends in the form’s words, in the order sent', () => {
    expect(savedLabels({ ribbon: 'Half', priceData: { price: 12 } })).toBe('Ribbon, Price (USD)');
    expect(
      savedLabels({
        name: 'Mug',
        costAndProfitData: { itemCost: 3 },
        weight: 0.4,
        sku: 'M-1',
        brand: 'Kiln',
      }),
    ).toBe('Name, Cost (USD), Weight (kg), SKU, Brand');
    expect(savedLabels({ visible: false, productType: 'digital', description: 'x' })).toBe(
      'Visible in the shop, Type, Description',
    );
    expect(savedLabels({ productOptions: [] })).toBe('Options');
  });

  it('leaves out what the form does not show', () => {
    expect(savedLabels({ manageVariants: true, ribbon: 'New' })).toBe('Ribbon');
    expect(savedLabels({})).toBe('');
  });
});

describe('partlySaved', () => {
  it('says what was saved, what was not and why, in words for people', () => {
    const e = partlySaved({ ribbon: 'Half' }, 'the options were not removed', offline());
    expect(e).toBeInstanceOf(PartlySaved);
    expect(e.saved).toBe('Ribbon');
    expect(saveFailure(e)).toBe(
      `Partly saved. Saved: Ribbon. Not saved: the options were not removed (${OFFLINE}) Save again to finish.`,
    );
  });
});

describe('saveFailure', () => {
  it('quotes a refusal of fields the form does not show in the platform’s words', () => {
    const refusal = new ValidationError(
      [{ field: 'product.seoData.tags', description: 'must have at most 20 items' }],
      { status: 400 },
    );
    expect(saveFailure(refusal)).toBe(
      'Not saved: the platform refused it: “product.seoData.tags must have at most 20 items”.',
    );
  });

  it('says other failures in words for people', () => {
    expect(saveFailure(offline())).toBe(OFFLINE);
  });
});

describe('after a save whose read-back failed', () => {
  it('says the save is stored and only the fresh copy is missing, never that it failed', () => {
    expect(SAVED_NOT_RELOADED).toMatch(/^Saved\. The saved product could not be loaded again/);
    expect(CREATED_NOT_LOADED).toMatch(/^Created\. The new product could not be loaded/);
    for (const text of [SAVED_NOT_RELOADED, CREATED_NOT_LOADED])
      expect(text).not.toMatch(/not saved|failed|try again|went wrong/i);
  });
});
