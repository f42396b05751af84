/**
 * Exact money arithmetic for the catalog: amounts are integers of minor units (cents), percentages
 * are scaled integers, and every division rounds half away from zero with BigInt. Binary floating
 * point is only used at the edges (a wire number in, a wire number out).
 * @module
 */

/** The store currency: every catalog price is in it. */
export const STORE_CURRENCY = 'USD';
/** Minor units per major unit of the store currency. */
export const MINOR_UNITS = 100;

const formatter = new Intl.NumberFormat('en-US', { style: 'currency', currency: STORE_CURRENCY });

/** Cents → the store's display form, e.g. `$1,234.50`. */
export const formatMoney = (cents: number) => formatter.format(cents / MINOR_UNITS);

/** Cents → a wire number (`12.5`). */
export const toAmount = (cents: number) => cents / MINOR_UNITS;

/** Cents → a decimal string with two places (`'12.50'`), exact. */
export function toDecimalString(cents: number): string {
  const neg = cents < 0;
  const abs = Math.abs(cents);
  const s = `${Math.floor(abs / MINOR_UNITS)}.${String(abs % MINOR_UNITS).padStart(2, '0')}`;
  return neg ? `-${s}` : s;
}

/**
 * A decimal number, or a decimal string such as `'12.5'` → an integer count of `10^-scale` units,
 * or `undefined` when it has more decimal places than `scale`, is not finite, or is not decimal
 * text. `scaled(12.5, 2)` → 1250.
 */
export function scaled(value: number | string, scale: number): number | undefined {
  if (typeof value === 'number' ? !Number.isFinite(value) : typeof value !== 'string') return undefined;
  const text = typeof value === 'number' ? decimalText(value) : value;
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!m) return undefined;
  const frac = m[3] ?? '';
  if (frac.length > scale) return undefined;
  const n = Number(m[2]! + frac.padEnd(scale, '0'));
  if (!Number.isSafeInteger(n)) return undefined;
  return m[1] ? -n : n;
}

/** A count of `10^-scale` units → its shortest decimal string: `unscaled(10500000, 6)` → `'10.5'`. */
export function unscaled(n: number, scale: number): string {
  const abs = String(Math.abs(n)).padStart(scale + 1, '0');
  const int = abs.slice(0, abs.length - scale);
  const frac = abs.slice(abs.length - scale).replace(/0+$/, '');
  return `${n < 0 ? '-' : ''}${int}${frac ? `.${frac}` : ''}`;
}

/** The shortest decimal text of a number, without exponent notation. */
function decimalText(value: number): string {
  const s = String(value);
  if (!/e/i.test(s)) return s;
  // 1e-7 and 1e21 style: expand exactly from the exponent form.
  const [mant, expText] = s.toLowerCase().split('e') as [string, string];
  const exp = Number(expText);
  const neg = mant.startsWith('-');
  const [int, frac = ''] = mant.replace('-', '').split('.') as [string, string?];
  const digits = int + frac;
  const point = int.length + exp;
  const out =
    point <= 0
      ? `0.${'0'.repeat(-point)}${digits}`
      : point >= digits.length
        ? digits + '0'.repeat(point - digits.length)
        : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return (neg ? '-' : '') + out;
}

/** `a * num / den`, rounded half away from zero, exactly. */
export function mulDivRound(a: number, num: bigint, den: bigint): number {
  const p = BigInt(a) * num;
  const neg = p < 0n !== den < 0n;
  const pa = p < 0n ? -p : p;
  const da = den < 0n ? -den : den;
  const q = (pa * 2n + da) / (da * 2n);
  return Number(neg ? -q : q);
}

/** Scale used for percentages: 4 decimal places (12.3456 %). */
export const PERCENT_SCALE = 4;
const PCT = 100n * 10n ** BigInt(PERCENT_SCALE);

/** Cents after a percentage discount of `pctScaled` (percent × 10^4), rounded to the cent. */
export const percentOff = (cents: number, pctScaled: number) =>
  mulDivRound(cents, PCT - BigInt(pctScaled), PCT);

/**
 * An amount (in `unit`s, e.g. cents or milligrams) changed by `rateScaled` percent (× 10^4,
 * negative lowers it), rounded to the unit, or to a whole multiple of `roundTo` units.
 */
export function adjustByPercent(amount: number, rateScaled: number, roundTo = 1): number {
  const exact = PCT + BigInt(rateScaled);
  if (roundTo === 1) return mulDivRound(amount, exact, PCT);
  return mulDivRound(amount, exact, PCT * BigInt(roundTo)) * roundTo;
}

/** Weights are kept in thousandths of the store's weight unit. */
export const WEIGHT_SCALE = 3;
export const toWeight = (milli: number) => milli / 1000;
