/**
 * Field transforms between the SDK's values and the platform's wire values (wire protocol §2).
 *
 * Each call declares the dotted paths of the fields it transforms; {@link compilePlan} turns those
 * declarations into a small trie once, and {@link applyPlan} walks only those paths, in one pass.
 * A response that declares nothing is returned untouched. Arrays on the way are walked element by
 * element; a `*` segment stands for every value of a map.
 * @module
 */

type Fn = (value: any) => any;

/** The transform kinds a call can declare, each a list of dotted field paths. */
export interface TransformSpec {
  /** Numbers: non-finite values travel as the strings `NaN`, `Infinity`, `-Infinity`. */
  float?: string[];
  /** Timestamps: `Date` on the SDK side, ISO-8601 strings on the wire. */
  date?: string[];
  /** Images: `wix:image://` media reference or URL on the SDK side, an image object on the wire. */
  image?: string[];
  /** Videos: `wix:video://` media reference or URL on the SDK side, a video object on the wire. */
  video?: string[];
  /** Addresses: SDK names (`addressLine1`, `location`, `formatted`) against REST names. */
  address?: string[];
  /** Page URLs: a string on the SDK side, `{relativePath, url}` on the wire. */
  url?: string[];
  /** Field masks: a string array on the SDK side, a comma-joined string on the wire. */
  mask?: string[];
}

export type Direction = 'toWire' | 'fromWire';

interface Node {
  fns: Fn[];
  kids: Record<string, Node>;
  /** Requests transform a field before its children (an address is renamed, then its geocode read). */
  pre?: boolean;
}

const NON_FINITE: Record<string, number> = { NaN: Number.NaN, Infinity: Infinity, '-Infinity': -Infinity };

/** Number → wire: non-finite numbers become their string names. */
export const floatToWire = (v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v);
/** Wire → number: the strings `NaN`, `Infinity`, `-Infinity` become numbers; anything else is kept. */
export const floatFromWire = (v: unknown) => (typeof v === 'string' && v in NON_FINITE ? NON_FINITE[v] : v);
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

const hashParams = (hash = '') => new URLSearchParams(hash);
const num = (s: string | null) => (s == null || s === '' ? undefined : Number(s));
const dec = (s?: string) => (s ? decodeURIComponent(s) : undefined);

/**
 * An image value → the wire image object.
 * @example imageToWire('wix:image://v1/abc.png/shirt.png#originWidth=800&originHeight=600')
 * // → { id: 'abc.png', width: 800, height: 600, altText: 'shirt.png', filename: 'shirt.png', url: 'wix:image://…' }
 */
export function imageToWire(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const m = IMAGE_REF.exec(v);
  if (!m) return { url: v };
  const p = hashParams(m[3]);
  const name = dec(m[2]);
  const img: WireImage = { id: m[1], width: num(p.get('originWidth')), height: num(p.get('originHeight')) };
  if (name) Object.assign(img, { altText: name, filename: name, url: v.replace(/^image:/, 'wix:image:') });
  return img;
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
  const p = hashParams(m[3]);
  const out: Record<string, unknown> = { id: m[1] };
  if (m[2]) out.filename = dec(m[2]);
  const poster = p.get('posterUri');
  if (poster)
    out.posters = [{ id: poster, width: num(p.get('posterWidth')), height: num(p.get('posterHeight')) }];
  return out;
}

/** A wire video object → `wix:video://v1/<id>[/<name>][#posterUri=…]`, or its URL. */
export function videoFromWire(v: unknown): unknown {
  if (!v || typeof v !== 'object') return v;
  const vid = v as { id?: string; url?: string; filename?: string; posters?: WireImage[] };
  if (!vid.id) return vid.url;
  const posters = vid.posters ?? [];
  const poster = posters[1] ?? posters[0];
  const hash = poster
    ? `#posterUri=${poster.id}&posterWidth=${poster.width ?? ''}&posterHeight=${poster.height ?? ''}`
    : '';
  return `wix:video://v1/${vid.id}${vid.filename ? '/' + vid.filename : ''}${hash}`;
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

/** Field mask: string[] → comma string. */
export const maskToWire = (v: unknown) => (Array.isArray(v) ? v.join(',') : v);
/** Field mask: comma string or `{paths}` → string[]. */
export const maskFromWire = (v: unknown) =>
  typeof v === 'string'
    ? v.split(',').filter(Boolean)
    : v && typeof v === 'object' && 'paths' in v
      ? (v as { paths: string[] }).paths
      : v;

const FNS: Record<keyof TransformSpec, [Fn, Fn]> = {
  float: [floatToWire, floatFromWire],
  date: [dateToWire, dateFromWire],
  image: [imageToWire, imageFromWire],
  video: [videoToWire, videoFromWire],
  address: [addressToWire, addressFromWire],
  url: [urlToWire, urlFromWire],
  mask: [maskToWire, maskFromWire],
};

/**
 * Order of application. Responses: timestamps and floats on REST names first, then the
 * object-to-string conversions (wire §1.7). Requests: the reverse, so that an address is renamed
 * before its `geocode` floats are looked at.
 */
const RESPONSE_ORDER: (keyof TransformSpec)[] = ['date', 'float', 'image', 'video', 'address', 'url', 'mask'];
const REQUEST_ORDER: (keyof TransformSpec)[] = ['image', 'video', 'address', 'url', 'mask', 'date', 'float'];

/** A compiled transform plan: a trie of paths with the functions to apply at their ends. */
export type Plan = Node | undefined;

/** Compiles a transform spec for one direction into a trie; `undefined` when there is nothing to do. */
export function compilePlan(spec: TransformSpec | undefined, dir: Direction): Plan {
  if (!spec) return undefined;
  const pre = dir === 'toWire';
  const root: Node = { fns: [], kids: {}, pre };
  let any = false;
  for (const kind of dir === 'toWire' ? REQUEST_ORDER : RESPONSE_ORDER) {
    for (const path of spec[kind] ?? []) {
      let node = root;
      for (const seg of path.split('.')) {
        node.kids[seg] ??= { fns: [], kids: {}, pre };
        node = node.kids[seg];
      }
      node.fns.push(FNS[kind][dir === 'toWire' ? 0 : 1]);
      any = true;
    }
  }
  return any ? root : undefined;
}

function visit(value: any, node: Node): any {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = visit(value[i], node);
    return value;
  }
  if (node.pre) for (const fn of node.fns) value = fn(value);
  if (value === null || typeof value !== 'object') {
    if (!node.pre) for (const fn of node.fns) value = fn(value);
    return value;
  }
  for (const key in node.kids) {
    const kid = node.kids[key]!;
    if (key === '*') {
      for (const k of Object.keys(value)) value[k] = visit(value[k], kid);
    } else if (key in value) {
      const next = visit(value[key], kid);
      if (next === undefined) delete value[key];
      else value[key] = next;
    }
  }
  if (!node.pre) for (const fn of node.fns) value = fn(value);
  return value;
}

/**
 * Applies a compiled plan to a value, in place where the value is a freshly built object.
 * Only the declared paths are visited.
 */
export function applyPlan<T>(value: T, plan: Plan): T {
  return plan && value && typeof value === 'object' ? visit(value, plan) : value;
}
