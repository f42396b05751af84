import { HttpError, ValidationError } from '@shopkit/sdk';
import { describe, expect, it } from 'vitest';
import { shippingDropped } from './shipping.ts';

describe('shippingDropped', () => {
  const refusal = (field: string) => new ValidationError([{ field, description: 'not offered' }]);

  it('keeps the chosen option while the estimate selects it, or nothing is chosen', () => {
    expect(shippingDropped('express', { selected: { code: 'express' }, settled: true })).toBeUndefined();
    expect(
      shippingDropped('express', {
        selected: { code: 'express', requestedShippingOption: true },
        settled: true,
      }),
    ).toBeUndefined();
    expect(shippingDropped(undefined, { selected: { code: 'standard' }, settled: true })).toBeUndefined();
    expect(
      shippingDropped(undefined, { error: refusal('selectedShippingOption.code'), settled: true }),
    ).toBeUndefined();
  });

  it('says an estimate refused for its shipping option refused it', () => {
    for (const field of [
      'selectedShippingOption',
      'selectedShippingOption.code',
      'options.selectedShippingOption',
    ])
      expect(shippingDropped('express', { error: refusal(field), settled: true })).toBe('refused');
    // Refused while the previous answer is still shown: refused all the same.
    expect(
      shippingDropped('express', {
        error: refusal('selectedShippingOption.code'),
        selected: { code: 'express' },
        settled: false,
      }),
    ).toBe('refused');
  });

  it('leaves other failures to show as failures', () => {
    for (const error of [
      refusal('shippingAddress.country'),
      refusal('selectedShippingOptions'),
      new HttpError('Bad gateway', { status: 502, code: 'BAD_GATEWAY', description: 'Bad gateway' }),
    ])
      expect(shippingDropped('express', { error, settled: true })).toBeUndefined();
  });

  it('says an answer that selected another option, or not the one requested, replaced it', () => {
    expect(shippingDropped('express', { selected: { code: 'standard' }, settled: true })).toBe('replaced');
    expect(
      shippingDropped('express', {
        selected: { code: 'express', requestedShippingOption: false },
        settled: true,
      }),
    ).toBe('replaced');
  });

  it('waits for the answer to the options asked for before saying it replaced them', () => {
    // The previous address's answer (a placeholder) or one with a newer estimate on its way.
    expect(shippingDropped('express', { selected: { code: 'standard' }, settled: false })).toBeUndefined();
    expect(shippingDropped('express', { settled: true })).toBeUndefined();
  });
});
