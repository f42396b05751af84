/** `1 product`, `2 products`: a count with its noun (`many` for irregular plurals). */
export const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A list of names, the first `max` and how many more: `a, b, c and 2 more`. */
export const few = (items: readonly string[], max = 3) =>
  items.length > max ? `${items.slice(0, max).join(', ')} and ${items.length - max} more` : items.join(', ');

/** Store-currency formatting for amounts the platform gives as numbers or decimal strings. */
export function money(amount: number | string | undefined, currency = 'USD') {
  const n = typeof amount === 'string' ? Number(amount) : (amount ?? 0);
  return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(n);
}
