/** `1 product`, `2 products`: a count with its noun (`many` for irregular plurals). */
export const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Store-currency formatting for amounts the platform gives as numbers or decimal strings. */
export function money(amount: number | string | undefined, currency = 'USD') {
  const n = typeof amount === 'string' ? Number(amount) : (amount ?? 0);
  return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(n);
}
