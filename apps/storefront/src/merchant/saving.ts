/**
 * What the product editor says about a save: the form's label of each field, what a save stored
 * only in part saved and did not (`PartlySaved`), why a save failed, and a save stored whose fresh
 * copy could not be read back. Pure: no React, no calls.
 * @module
 */
import { ApplicationError, type ProductInput, ShopkitError } from '@shopkit/sdk';
import { humanMessage, isRefusal } from '../errors.ts';
import { type Field, platformWords, REFUSABLE } from './draft.ts';

/** The form's label of each field. */
export const LABELS: Record<Exclude<Field, 'visible'>, string> = {
  name: 'Name',
  description: 'Description',
  productType: 'Type',
  price: 'Price (USD)',
  cost: 'Cost (USD)',
  weight: 'Weight (kg)',
  sku: 'SKU',
  ribbon: 'Ribbon',
  brand: 'Brand',
  options: 'Options',
};

/** The form's field of each product field a save sends (`priceData`: the price). */
const SENT_AS: Partial<Record<keyof ProductInput, Field>> = {
  ...REFUSABLE,
  productType: 'productType',
  visible: 'visible',
};

/**
 * The labels of the fields `input` sends, in the form's words; fields the form does not show are
 * left out.
 * @example savedLabels({ ribbon: 'Half', priceData: { price: 12 } }) // 'Ribbon, Price (USD)'
 */
export const savedLabels = (input: ProductInput) =>
  (Object.keys(input) as (keyof ProductInput)[])
    .flatMap((k) => {
      const f = SENT_AS[k];
      return !f ? [] : f === 'visible' ? ['Visible in the shop'] : [LABELS[f]];
    })
    .join(', ');

/**
 * A write of several calls that failed after some of them were stored: `saved` says what is stored
 * (`Ribbon, Price (USD)`), `notSaved` what is not, and `failure` is why. `useWrite` refreshes the
 * console after it as after a success.
 */
export class PartlySaved extends Error {
  constructor(
    readonly saved: string,
    readonly notSaved: string,
    readonly failure: unknown,
  ) {
    super(`Saved ${saved}; ${notSaved}`);
  }
}

/** The failure of a save whose first call stored `input` and whose next call (`notSaved`) failed. */
export const partlySaved = (input: ProductInput, notSaved: string, failure: unknown) =>
  new PartlySaved(savedLabels(input), notSaved, failure);

/**
 * Whether a write failed with no answer (offline, a timeout, a 5xx): it may be stored all the same,
 * so it is said as maybe made, never as not saved, which invites it again (a second product, image
 * or collection). `useWrite` reads the console again after it, so the page shows what is stored.
 */
export const unanswered = (error: unknown) => error instanceof ShopkitError && !isRefusal(error);

/**
 * Whether a write failed because what it changes is no longer stored (deleted elsewhere: another
 * tab, another merchant). The platform's own words name it by its id, which says nothing to a
 * merchant; `goneWords` says it.
 */
export const gone = (error: unknown) => error instanceof ApplicationError && error.status === 404;

/** What a page says about a write to something deleted elsewhere (`this product`). */
export const goneWords = (what: string) =>
  `The change was not saved: ${what} no longer exists. It was deleted elsewhere (another tab or person).`;

/** What a page says about a write of its own with no answer (`unanswered`). */
export const MAYBE_MADE =
  'No answer came back, so the change may or may not have been made: check what the page shows before making it again.';

/**
 * What the editor's alert says about a failed save (`created`: of a new product, which a second
 * press would make twice; a change sets the same values again).
 */
export function saveFailure(error: unknown, created = false) {
  if (created && unanswered(error))
    return 'No answer came back, so the product may or may not have been created: look for it in the product list before creating it again.';
  if (gone(error)) return goneWords('this product');
  if (error instanceof PartlySaved)
    return `Partly saved. Saved: ${error.saved}. Not saved: ${error.notSaved} (${humanMessage(error.failure)}) Save again to finish.`;
  // A refusal the form has no field for: in the platform's own words.
  const words = platformWords(error);
  return words ? `Not saved: the platform refused it: “${words}”.` : humanMessage(error);
}

/**
 * What the editor says when a save was stored but reading the product back failed (offline, a
 * 5xx): it is saved (never "not saved" nor "try again", which invite a second save or create), and
 * only the fresh copy is missing; the editor offers to load it (`Load it again`).
 */
export const SAVED_NOT_RELOADED =
  'Saved. The saved product could not be loaded again, so the form may not show all that is stored yet.';
/** The same for a product just created whose editor could not load it. */
export const CREATED_NOT_LOADED = 'Created. The new product could not be loaded yet.';
/**
 * What the collections page adds to a write's status when the write is stored but the page could
 * not read the collections (or a collection's products) back: done, never "not saved".
 */
export const COLLECTIONS_NOT_RELOADED =
  'The collections could not be loaded again, so the page may not show all that is stored yet.';
