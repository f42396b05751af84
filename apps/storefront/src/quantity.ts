/**
 * The product page's quantity box: what the text typed stands for, and why it cannot be added. A
 * quantity is a whole number written in digits (spaces around it are ignored; a sign, a decimal
 * point or an exponent is not a whole number here), at least 1, at most `MAX_QUANTITY` at a time,
 * and at most the stock left for this shopper: the selected variant's tracked stock less what the
 * cart already holds of it. Untracked or unknown stock limits nothing but `MAX_QUANTITY`.
 * @module
 */
import type { cart, products } from '@shopkit/sdk';

/** The largest quantity added in one go. */
export const MAX_QUANTITY = 99;

/**
 * The quantity the box's text stands for, or `undefined` when it is not a whole number in digits.
 * @example parseQuantity(' 3 ') // 3; parseQuantity('1e3') // undefined
 */
export function parseQuantity(text: string): number | undefined {
  const t = text.trim();
  return /^\d+$/.test(t) ? Number(t) : undefined;
}

/**
 * The selected variant's tracked stock, or `undefined` when it limits nothing: no variant chosen
 * yet, out of stock (the variant cannot be bought at all), or inventory not tracked.
 */
export function trackedStock(variant: products.SelectedVariant | null | undefined): number | undefined {
  return variant?.inStock && variant.quantity !== undefined ? variant.quantity : undefined;
}

/**
 * How many of a product the cart's lines hold: of the variant `variantId`, or of any variant when
 * it is `undefined` (a product without options).
 */
export function quantityInCart(
  lines: readonly cart.LineItem[] | undefined,
  productId: string,
  variantId?: string,
): number {
  return (lines ?? [])
    .filter(
      (l) =>
        l.catalogReference?.catalogItemId === productId &&
        (variantId === undefined || l.catalogReference.options?.variantId === variantId),
    )
    .reduce((n, l) => n + l.quantity, 0);
}

/** What bounds a quantity besides `MAX_QUANTITY`. */
export interface Room {
  /** The variant's tracked stock (`trackedStock`); `undefined` when it limits nothing. */
  stock?: number;
  /** How many of the variant the cart holds already (`quantityInCart`). */
  inCart: number;
}

/**
 * Why the box's text cannot be added, as a sentence for the shopper, or `undefined` when it can.
 * Above the stock left the shopper is told how many remain, unless the limit at a time is lower.
 * @example quantityProblem('9', { stock: 4, inCart: 0 }) // 'Only 4 left: you can add up to 4.'
 */
export function quantityProblem(text: string, { stock, inCart }: Room): string | undefined {
  if (!text.trim()) return 'Enter a quantity.';
  const quantity = parseQuantity(text);
  if (quantity === undefined) return 'Enter a whole number, such as 1 or 2.';
  if (quantity < 1) return 'Enter at least 1.';
  const left = stock === undefined ? undefined : Math.max(0, stock - inCart);
  if (left !== undefined && left < MAX_QUANTITY && quantity > left) {
    if (left === 0) return `All ${stock} in stock are already in your cart.`;
    return inCart
      ? `Only ${stock} left and ${inCart} already in your cart: you can add up to ${left}.`
      : `Only ${left} left: you can add up to ${left}.`;
  }
  if (quantity > MAX_QUANTITY) return `You can add up to ${MAX_QUANTITY} at a time.`;
  return undefined;
}
