/**
 * Exact money for carts: amounts are integer minor units (cents) held as `bigint`, exact at any
 * size (a cart of 300 lines × 9999 of the dearest item is about 3 × 10^17 cents, past the 2^53 of
 * numbers); rates are decimal strings applied with BigInt and rounded half away from zero. No binary
 * floating point touches an amount. Wire amounts are decimal strings with a `formattedAmount` in
 * the currency.
 * @module
 */

/** The store currency (the catalog's prices are in it). */
export const CURRENCY = 'USD';

const formatters = new Map<string, Intl.NumberFormat>();
function formatter(currency: string) {
  let f = formatters.get(currency);
  if (!f) {
    f = new Intl.NumberFormat('en-US', { style: 'currency', currency });
    formatters.set(currency, f);
  }
  return f;
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/** Whether a string is a plain decimal amount with at most two places (`12`, `12.5`, `12.50`). */
export const isAmount = (s: string) => /^\d{1,13}(\.\d{1,2})?$/.test(s);

/**
 * A decimal string (or number from the catalog) → cents, exactly; digits past the second place are
 * rounded half away from zero. `undefined` for anything that is not a decimal.
 */
export function toCents(value: string | number): bigint | undefined {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? value.toFixed(6) : '') : value.trim();
  const m = DECIMAL.exec(text);
  if (!m) return undefined;
  const frac = m[3] ?? '';
  let cents = BigInt(m[2]!) * 100n + BigInt(frac.slice(0, 2).padEnd(2, '0'));
  if (frac.length > 2 && Number(frac[2]) >= 5) cents += 1n;
  return m[1] ? -cents : cents;
}

/** Cents → `'12.50'`. */
export function decimal(cents: bigint): string {
  const abs = cents < 0n ? -cents : cents;
  const s = `${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
  return cents < 0n ? `-${s}` : s;
}

/**
 * The wire price object: `{amount, convertedAmount, formattedAmount, formattedConvertedAmount}`.
 * `formattedAmount` formats the decimal string itself, which `Intl.NumberFormat` takes exactly.
 */
export function price(cents: bigint, currency = CURRENCY) {
  const amount = decimal(cents);
  const formattedAmount = formatter(currency).format(amount as Intl.StringNumericLiteral);
  return { amount, convertedAmount: amount, formattedAmount, formattedConvertedAmount: formattedAmount };
}

/** The sum of amounts. */
export const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);

/** The smaller of two amounts. */
export const min = (a: bigint, b: bigint) => (a < b ? a : b);

/** Decimal places a rate holds (millionths of a percent). */
export const RATE_SCALE = 6;
const RATE = new RegExp(`^(\\d{1,3})(?:\\.(\\d{1,${RATE_SCALE}}))?$`);

/** A percentage as millionths of a percent (`'8.875'` → 8 875 000), or `undefined`. */
export function rateMicros(rate: string | number): number | undefined {
  const text = typeof rate === 'number' ? (Number.isFinite(rate) ? String(rate) : '') : rate;
  const m = RATE.exec(text);
  if (!m) return undefined;
  return Number(m[1]) * 1_000_000 + Number((m[2] ?? '').padEnd(6, '0'));
}

/** `cents × rate%`, rounded half away from zero to whole cents, exactly. */
export function percentOf(cents: bigint, micros: number): bigint {
  const denom = 100_000_000n; // 100 % × 10^6
  const n = (cents < 0n ? -cents : cents) * BigInt(micros);
  const q = (n + denom / 2n) / denom;
  return cents < 0n ? -q : q;
}

/** A rate in millionths of a percent → its decimal string as a fraction (`8 875 000` → `'0.08875'`). */
export function rateFraction(micros: number): string {
  const s = String(micros).padStart(9, '0');
  const frac = `${s.slice(0, -8) || '0'}.${s.slice(-8)}`.replace(/0+$/, '').replace(/\.$/, '');
  return frac;
}

/**
 * Splits `total` cents over `weights` in proportion, exactly: largest remainders get the spare
 * cents, so the parts always add up to `total`.
 */
export function allocate(total: bigint, weights: bigint[]): bigint[] {
  const whole = sum(weights);
  if (whole <= 0n || total === 0n) return weights.map(() => 0n);
  const big = weights.map((w) => w * total);
  const parts = big.map((b) => b / whole);
  let spare = total - sum(parts);
  const order = big
    .map((b, i) => ({ i, rem: b % whole }))
    .sort((a, b) => (a.rem === b.rem ? a.i - b.i : a.rem > b.rem ? -1 : 1));
  for (const { i } of order) {
    if (spare <= 0n) break;
    parts[i]! += 1n;
    spare -= 1n;
  }
  return parts;
}
