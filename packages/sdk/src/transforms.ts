/**
 * Field transforms between the SDK's values and the platform's wire values (wire protocol §2).
 *
 * A call declares the fields it transforms as a tree that mirrors the message:
 * `{ product: { lastUpdated: date, priceData: { price: float } } }`. Leaves are transform kinds
 * (`float`, `date`, `image`, `video`, `address`, `url`), each a pair of functions; a kind with fields
 * of its own below it is `nest(kind, { ... })` (an address and its geocode). {@link walk} visits only
 * the declared fields, in one pass, in place. Arrays on the way are walked element by element; a
 * `*` key stands for every value of a map. Only the kinds a bundle's calls use are bundled.
 * @module
 */

type Fn = (value: any) => any;

/** A transform kind: SDK → wire, wire → SDK, and optionally the fields below it. */
export type Kind = readonly [toWire: Fn, fromWire: Fn, below?: TransformSpec];

/** The fields of a message to transform, as a tree. */
export interface TransformSpec {
  readonly [field: string]: TransformSpec | Kind;
}

/** Number → wire: non-finite numbers become their string names. */
export const floatToWire = (v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v);
/** Wire → number: the strings `NaN`, `Infinity`, `-Infinity` become numbers; anything else is kept. */
export const floatFromWire = (v: unknown) => (v === 'NaN' || v === 'Infinity' || v === '-Infinity' ? +v : v);
/** `Date` → ISO string. A string that already is a timestamp passes through. */
export const dateToWire = (v: unknown) => (v instanceof Date ? v.toISOString() : v);
/** Non-empty string → `Date`; an empty string becomes `undefined`. */
export const dateFromWire = (v: unknown) => (typeof v === 'string' ? (v ? new Date(v) : undefined) : v);

/** A wire image: a media-manager image or an external URL. */
export interface WireImage {
  id?: string;
  url?: string;
  width?: number;
  height?: number;
  altText?: string;
  filename?: string;
  [key: string]: unknown;
}

const IMAGE_REF = /^(?:wix:)?image:\/\/v1\/([^/#]+)(?:\/([^#]*))?(?:#(.*))?$/;
const VIDEO_REF = /^wix:video:\/\/v1\/([^/#]+)(?:\/([^#]*))?(?:#(.*))?$/;

const num = (s: string | null) => (s ? +s : undefined);
/** A name from a media reference, percent-decoded when it can be (`50%off.png` stays as it is). */
const dec = (s?: string) => {
  try {
    return s ? decodeURIComponent(s) : undefined;
  } catch {
    return s;
  }
};

/**
 * An image value → the wire image object.
 * @example imageToWire('wix:image://v1/abc.png/shirt.png#originWidth=800&originHeight=600')
 * // → { id: 'abc.png', width: 800, height: 600, altText: 'shirt.png', filename: 'shirt.png', url: 'wix:image://…' }
 */
export function imageToWire(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const m = IMAGE_REF.exec(v);
  if (!m) return { url: v };
  const p = new URLSearchParams(m[3]);
  const name = dec(m[2]);
  const img: WireImage = { id: m[1], width: num(p.get('originWidth')), height: num(p.get('originHeight')) };
  return name ? { ...img, altText: name, filename: name, url: v.replace(/^image:/, 'wix:image:') } : img;
}

/** A wire image object → `wix:image://v1/<id>[/<name>]#originWidth=W&originHeight=H`, or its URL. */
export function imageFromWire(v: unknown): unknown {
  if (!v || typeof v !== 'object') return v;
  const img = v as WireImage;
  if (!img.id) return img.url;
  const name = img.filename || img.altText;
  return `wix:image://v1/${img.id}${name ? '/' + encodeURIComponent(name) : ''}#originWidth=${img.width ?? ''}&originHeight=${img.height ?? ''}`;
}

/** A video value → the wire video object. */
export function videoToWire(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const m = VIDEO_REF.exec(v);
  if (!m) return { url: v };
  const p = new URLSearchParams(m[3]);
  const out: Record<string, unknown> = { id: m[1] };
  if (m[2]) out.filename = dec(m[2]);
  const poster = p.get('posterUri');
  if (poster)
    out.posters = [{ id: poster, width: num(p.get('posterWidth')), height: num(p.get('posterHeight')) }];
  return out;
}

/**
 * A wire video object → `wix:video://v1/<id>[/<encoded name>][#posterUri=…]`, or its URL. A poster
 * without an id is named by the last segment of its URL, as the platform SDK does.
 */
export function videoFromWire(v: unknown): unknown {
  if (!v || typeof v !== 'object') return v;
  const vid = v as { id?: string; url?: string; filename?: string; posters?: WireImage[] };
  if (!vid.id) return vid.url;
  const posters = vid.posters ?? [];
  const poster = posters[1] ?? posters[0];
  const posterId = poster && (poster.id || poster.url?.split('/').pop());
  const hash = posterId
    ? `#posterUri=${posterId}&posterWidth=${poster!.width ?? ''}&posterHeight=${poster!.height ?? ''}`
    : '';
  return `wix:video://v1/${vid.id}${vid.filename ? '/' + encodeURIComponent(vid.filename) : ''}${hash}`;
}

const ADDRESS_NAMES: [sdk: string, wire: string][] = [
  ['formatted', 'formattedAddress'],
  ['location', 'geocode'],
  ['addressLine1', 'addressLine'],
];

function renameKeys(v: unknown, from: 0 | 1): unknown {
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = { ...(v as object) };
  for (const pair of ADDRESS_NAMES) {
    const a = pair[from];
    const b = pair[1 - from] as string;
    if (a in out) {
      out[b] = out[a];
      delete out[a];
    }
  }
  return out;
}

/** SDK address → REST address (`addressLine1`→`addressLine`, `location`→`geocode`, `formatted`→`formattedAddress`). */
export const addressToWire = (v: unknown) => renameKeys(v, 0);
/** REST address → SDK address. */
export const addressFromWire = (v: unknown) => renameKeys(v, 1);

/** A page URL string → `{relativePath, url}`. */
export function urlToWire(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return { relativePath: new URL(v).pathname, url: v };
  } catch {
    return { relativePath: v, url: v };
  }
}
/** `{relativePath, url}` → the URL string. */
export const urlFromWire = (v: unknown) =>
  v && typeof v === 'object'
    ? ((v as { url?: string }).url ?? (v as { relativePath?: string }).relativePath)
    : v;

/** Numbers: non-finite values travel as the strings `NaN`, `Infinity`, `-Infinity`. */
export const float: Kind = [floatToWire, floatFromWire];
/** Timestamps: `Date` on the SDK side, ISO-8601 strings on the wire. */
export const date: Kind = [dateToWire, dateFromWire];
/** Images: `wix:image://` media reference or URL on the SDK side, an image object on the wire. */
export const image: Kind = [imageToWire, imageFromWire];
/** Videos: `wix:video://` media reference or URL on the SDK side, a video object on the wire. */
export const video: Kind = [videoToWire, videoFromWire];
/** Addresses: SDK names (`addressLine1`, `location`, `formatted`) against REST names. */
export const address: Kind = [addressToWire, addressFromWire];
/** Page URLs: a string on the SDK side, `{relativePath, url}` on the wire. */
export const url: Kind = [urlToWire, urlFromWire];

/** A kind with fields of its own below it: `nest(address, { geocode: { latitude: float } })`. */
/* @__NO_SIDE_EFFECTS__ */
export function nest(kind: Kind, below: TransformSpec): Kind {
  return [kind[0], kind[1], below];
}

/**
 * Walks `value` along `spec`, in place: `dir` 0 turns SDK values into wire values (a kind before
 * the fields below it, so that an address is renamed before its geocode is read), 1 turns wire
 * values into SDK values (the fields below first). A field that becomes `undefined` is deleted.
 */
// Generic on purpose: specs compiled into closures measured no faster on the usual (lean) walk,
// whose time is the `Date`s, and cost about 200 bytes more.
export function walk(value: any, spec: TransformSpec | Kind, dir: 0 | 1): any {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = walk(value[i], spec, dir);
    return value;
  }
  const kind = Array.isArray(spec) ? (spec as Kind) : undefined;
  const below = kind ? kind[2] : (spec as TransformSpec);
  if (kind && !dir) value = kind[0](value);
  if (below && value && typeof value === 'object')
    for (const key in below) {
      if (key === '*') for (const k of Object.keys(value)) step(value, k, below[key]!, dir);
      // Reading first spares the slower `in` for a missing field; a field that holds `undefined`
      // (only requests have them: JSON has none) is walked, and so deleted.
      else if (value[key] !== undefined || (!dir && key in value)) step(value, key, below[key]!, dir);
    }
  return kind && dir ? kind[1](value) : value;
}

function step(obj: any, key: string, spec: TransformSpec | Kind, dir: 0 | 1) {
  const v = obj[key];
  const next = walk(v, spec, dir);
  if (next === undefined) delete obj[key];
  else if (next !== v) obj[key] = next;
}

const leanOf = new WeakMap<object, TransformSpec>();

/**
 * The spec without its `float` leaves: a response whose text holds no `NaN` or `Infinity` string
 * needs no float walk (a kind that has fields below it keeps its other transforms).
 */
export function lean(spec: TransformSpec): TransformSpec {
  let out = leanOf.get(spec);
  if (!out) {
    const kept: Record<string, TransformSpec | Kind> = {};
    for (const key in spec) {
      const node = spec[key]!;
      if (!Array.isArray(node)) {
        const below = lean(node as TransformSpec);
        if (Object.keys(below).length) kept[key] = below;
      } else if (node !== float) kept[key] = node[2] ? nest(node as Kind, lean(node[2])) : (node as Kind);
    }
    out = kept;
    leanOf.set(spec, out);
  }
  return out;
}
