/**
 * The cart page's estimate address: the countries it takes, ISO 3166-1 alpha-2 codes as the
 * platform does (the 249 assigned, and `XK` for Kosovo; any other two letters, `UK` or `ZZ`, are
 * refused), and what the platform refused of an address sent, to say beside its fields rather
 * than only as a refusal of the whole estimate or checkout.
 * @module
 */

export const COUNTRY_CODES: readonly string[] = `
  AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS
  BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE
  EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM
  HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC
  LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA
  NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW
  SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO
  TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW`
  .trim()
  .split(/\s+/);

const known = new Set(COUNTRY_CODES);

/**
 * Codes people write for a country that are not its ISO code: the United Kingdom's `UK`, the EU's
 * `EL` for Greece. Named with the code to use instead.
 */
const WRITTEN_FOR: Record<string, string> = { UK: 'GB', EL: 'GR' };

let names: Intl.DisplayNames | undefined;
/** The country's English name (`GB` → `United Kingdom`), or the code itself where none is known. */
export function countryName(code: string) {
  try {
    names ??= new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}

/**
 * Why the country typed is not one the shop takes, as a sentence for the shopper; `undefined`
 * when it is one (any case). Not two letters is the browser's to say (the field's pattern).
 * @example countryProblem('UK') // 'UK is not a country code; the United Kingdom is GB.'
 */
export function countryProblem(text: string): string | undefined {
  const code = text.trim().toUpperCase();
  if (!/^[A-Z]{2}$/.test(code) || known.has(code)) return undefined;
  const meant = WRITTEN_FOR[code];
  if (meant) {
    const name = countryName(meant);
    return `${code} is not a country code; ${name === 'United Kingdom' ? 'the United Kingdom' : name} is ${meant}.`;
  }
  return `${code} is not a country code. Choose a country from the list, such as US for the United States.`;
}

/** The estimate form's address fields, in the order the form shows them. */
export const ADDRESS_FIELDS = ['country', 'subdivision', 'city', 'postalCode'] as const;
export type AddressField = (typeof ADDRESS_FIELDS)[number];
export type AddressProblems = Partial<Record<AddressField, string>>;

const LABELS: Record<AddressField, string> = {
  country: 'Country code',
  subdivision: 'State',
  city: 'City',
  postalCode: 'Postal code',
};

/**
 * What the platform refused of the shipping address an estimate or checkout sent (field
 * violations on `shippingAddress.<field>`), a sentence per field to show beside it; `undefined`
 * when it refused none of them. `sent` is the address sent (its country names the mistake).
 * @example addressProblems(new ValidationError([{ field: 'options.shippingAddress.country', … }]), { country: 'UK', … })
 */
export function addressProblems(
  error: unknown,
  sent: { country: string } | undefined,
): AddressProblems | undefined {
  const violations = (error as { violations?: { field: string; description?: string }[] } | null)?.violations;
  if (!Array.isArray(violations)) return undefined;
  const out: AddressProblems = {};
  for (const v of violations) {
    const field = /(?:^|\.)shippingAddress\.(country|subdivision|city|postalCode)$/.exec(v.field)?.[1] as
      | AddressField
      | undefined;
    if (!field || out[field]) continue;
    out[field] =
      (field === 'country' && sent && countryProblem(sent.country)) ||
      `The shop does not take this ${LABELS[field].toLowerCase()}${v.description && /^[\w\s,;'-]+$/.test(v.description) ? `: it ${v.description}` : ''}. Check it and try again.`;
  }
  return Object.keys(out).length ? out : undefined;
}
