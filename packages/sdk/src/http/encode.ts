/**
 * Request encoding (wire §1.4): flattened query strings for GET and DELETE, the `.r` base64url form
 * for the query endpoints, percent-encoded path parameters.
 * @module
 */

const urlSafe = (b64: string) => b64.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');

/** Base64url (no padding) of UTF-8 text. ASCII text, the usual query, is its own UTF-8. */
export const base64urlEncode = (text: string): string =>
  /[^\0-\x7f]/.test(text) ? bytesToBase64url(new TextEncoder().encode(text)) : urlSafe(btoa(text));

/** Base64url (no padding) of raw bytes. */
export function bytesToBase64url(bytes: Uint8Array): string {
  let bin = '';
  // In slices: spreading a large array into one call would overflow the argument stack.
  for (let i = 0; i < bytes.length; i += 8192) bin += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return urlSafe(btoa(bin));
}

/** Decodes base64url (padding optional) to UTF-8 text. Throws on malformed input. */
export function base64urlDecode(s: string): string {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

/** A plain object: not null, not an array, not a `Date`. */
export const isObj = (v: unknown): v is Record<string, any> =>
  !!v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);

/**
 * Simple query encoding: nested objects become dot paths, arrays of scalars repeated keys; arrays of
 * objects, `null` and `undefined` are dropped. Returns whether a dotted key or an array of objects
 * was seen, which is what makes a query endpoint switch to `.r`. As in the platform SDK, a dotted
 * key counts even when its value is dropped (`{filter: {ribbon: null}}` is a filter), an empty
 * object makes none (`{filter: {}}` sends nothing).
 */
export function flattenQuery(
  msg: Record<string, unknown>,
  params = new URLSearchParams(),
  prefix = '',
): { params: URLSearchParams; complex: boolean } {
  let complex = false;
  for (const key in msg) {
    const value = msg[key];
    const name = prefix + key;
    if (isObj(value)) complex = flattenQuery(value, params, name + '.').complex || complex;
    else {
      complex ||= !!prefix;
      for (const item of Array.isArray(value) ? value : [value])
        if (item != null && typeof item === 'object' && !(item instanceof Date))
          complex ||= Array.isArray(value);
        else if (item != null) params.append(name, item instanceof Date ? item.toISOString() : String(item));
    }
  }
  return { params, complex };
}

/**
 * The query string of a GET/DELETE message. With `complex`, a message that has a dotted key or an
 * array of objects travels whole as `.r=<base64url JSON>`; an empty message sends nothing.
 */
export function encodeQuery(msg: Record<string, unknown>, complex: boolean): string {
  const flat = flattenQuery(msg);
  return complex && flat.complex ? '.r=' + base64urlEncode(JSON.stringify(msg)) : flat.params.toString();
}

/** Reads a dotted path (`a.b.c`) of an object. */
export function getPath(obj: unknown, path: string): any {
  for (const seg of path.split('.')) obj = (obj as any)?.[seg];
  return obj;
}

/** Sets a dotted path, creating (or copying) the objects on the way. */
export function setPath(obj: Record<string, any>, path: string, value: unknown) {
  const segs = path.split('.');
  const last = segs.pop()!;
  for (const seg of segs) obj = obj[seg] = isObj(obj[seg]) ? { ...obj[seg] } : {};
  obj[last] = value;
}

/**
 * Fills `{field}` or `{a.b}` segments of a path template from the message, percent-encoding each
 * value. Returns the name of the first missing parameter instead when one is empty, or `.` or `..`,
 * which a URL parser would take as a step up the path (`/products/..` is `/`).
 */
export function fillPath(
  template: string,
  msg: Record<string, unknown>,
): { path: string } | { missing: string; dot?: boolean } {
  // Most paths have no parameter: no pattern to run (half a point to a point of a get-cart's
  // throughput in memory, in paired runs).
  if (!template.includes('{')) return { path: template };
  let missing = '';
  let dot = false;
  const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const v = getPath(msg, name);
    if (!missing && ((typeof v !== 'string' && typeof v !== 'number') || /^\.{0,2}$/.test(String(v)))) {
      missing = name;
      dot = typeof v === 'string' && v !== '';
    }
    return encodeURIComponent(v);
  });
  return missing ? { missing, dot } : { path };
}
