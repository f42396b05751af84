/**
 * Request encoding (wire §1.4): flattened query strings for GET and DELETE, the `.r` base64url form
 * for the query endpoints, percent-encoded path parameters.
 * @module
 */

/** Base64url (no padding) of UTF-8 text. */
export function base64urlEncode(text: string): string {
  const bytes = new TextEncoder().encode(text);
  return bytesToBase64url(bytes);
}

/** Base64url (no padding) of raw bytes. */
export function bytesToBase64url(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Decodes base64url (padding optional) to UTF-8 text. Throws on malformed input. */
export function base64urlDecode(s: string): string {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date);

/**
 * Simple query encoding: nested objects become dot paths, arrays of scalars repeated keys; arrays of
 * objects, `null` and `undefined` are dropped. Returns whether a dotted key or an array of objects
 * was seen, which is what makes a query endpoint switch to `.r`.
 */
export function flattenQuery(msg: Record<string, unknown>, out = new URLSearchParams(), prefix = '') {
  let complex = false;
  for (const key of Object.keys(msg)) {
    const value = msg[key];
    const name = prefix + key;
    if (value == null) continue;
    if (isObj(value)) {
      complex = true;
      flattenQuery(value, out, name + '.');
    } else if (Array.isArray(value)) {
      for (const item of value) {
        if (isObj(item) || Array.isArray(item)) complex = true;
        else if (item != null) out.append(name, scalar(item));
      }
    } else out.append(name, scalar(value));
  }
  return { params: out, complex };
}

const scalar = (v: unknown) => (v instanceof Date ? v.toISOString() : String(v));

/**
 * The query string of a GET/DELETE message. With `complex`, a message that has a dotted key or an
 * array of objects travels whole as `.r=<base64url JSON>`; an empty message sends nothing.
 */
export function encodeQuery(msg: Record<string, unknown>, complex: boolean): string {
  const { params, complex: needsR } = flattenQuery(msg);
  if (complex && needsR) return '.r=' + base64urlEncode(JSON.stringify(msg));
  return params.toString();
}

/** Reads a dotted path (`a.b.c`) of an object. */
export function getPath(obj: unknown, path: string): unknown {
  let cur = obj as any;
  for (const seg of path.split('.')) {
    if (cur == null) return undefined;
    cur = cur[seg];
  }
  return cur;
}

/** Sets a dotted path, creating (or copying) the objects on the way. */
export function setPath(obj: Record<string, any>, path: string, value: unknown) {
  const segs = path.split('.');
  let cur = obj;
  for (let i = 0; i < segs.length - 1; i++) {
    const seg = segs[i]!;
    cur[seg] = isObj(cur[seg]) ? { ...cur[seg] } : {};
    cur = cur[seg];
  }
  cur[segs[segs.length - 1]!] = value;
}

/**
 * Fills `{field}` or `{a.b}` segments of a path template from the message, percent-encoding each
 * value. Returns the name of the first missing parameter instead when one is empty.
 */
export function fillPath(
  template: string,
  msg: Record<string, unknown>,
): { path: string } | { missing: string } {
  let missing = '';
  const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const v = getPath(msg, name);
    if ((typeof v !== 'string' && typeof v !== 'number') || v === '') missing ||= name;
    return encodeURIComponent(String(v));
  });
  return missing ? { missing } : { path };
}
