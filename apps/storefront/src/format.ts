/** Store-currency formatting for amounts the platform gives as numbers or decimal strings. */
export function money(amount: number | string | undefined, currency = 'USD') {
  const n = typeof amount === 'string' ? Number(amount) : (amount ?? 0);
  return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(n);
}
