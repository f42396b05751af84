/**
 * The cart page's chosen shipping option at a new estimate address: whether the estimate dropped it.
 * The shopper's choice is asked for at every address; an address that does not offer it either
 * has the platform refuse the estimate for it, or (as a platform may) answer with its default.
 * @module
 */
import { ValidationError } from '@shopkit/sdk';

/** What of an estimate's answer tells whether the chosen option is still selected. */
export interface ShippingAnswer {
  /** The estimate's failure, if it failed. */
  error?: unknown;
  /** The option the estimate selected (`shippingInfo.selectedCarrierServiceOption`). */
  selected?: { code?: string; requestedShippingOption?: boolean };
  /** The answer is for the options asked for: not a placeholder, and no newer estimate on its way. */
  settled: boolean;
}

/** Whether an estimate was refused for its shipping option (one the address does not offer). */
const refusesShipping = (error: unknown) =>
  error instanceof ValidationError &&
  error.violations.some((v) => /(^|\.)selectedShippingOption(\.|$)/.test(v.field));

/**
 * Why the chosen option `chosen` (a code) is no longer selected: `refused` (the estimate failed for
 * it, an error not to show as the totals failing), `replaced` (the answer selected another option,
 * or said it did not select the one requested), or `undefined` while it is kept or none is chosen.
 * @example shippingDropped('express', { selected: { code: 'standard' }, settled: true }) // 'replaced'
 */
export function shippingDropped(
  chosen: string | undefined,
  { error, selected, settled }: ShippingAnswer,
): 'refused' | 'replaced' | undefined {
  if (!chosen) return undefined;
  if (refusesShipping(error)) return 'refused';
  if (selected && settled && (selected.code !== chosen || selected.requestedShippingOption === false))
    return 'replaced';
  return undefined;
}
