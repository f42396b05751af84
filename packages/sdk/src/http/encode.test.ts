import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64urlDecode, base64urlEncode, encodeQuery, fillPath, flattenQuery } from './encode.ts';

describe('query encoding (wire §1.4)', () => {
  it('flattens nested objects to dot paths and repeats scalar arrays', () => {
    const q = encodeQuery(
      { query: { filter: { name: { $eq: 'x' } }, paging: { limit: 5 } }, ids: ['1', '2'] },
      false,
    );
    expect(q).toBe('query.filter.name.%24eq=x&query.paging.limit=5&ids=1&ids=2');
  });

  it('drops null, undefined and arrays of objects, keeps empty strings', () => {
    expect(encodeQuery({ a: null, b: undefined, c: '', d: [{ x: 1 }], e: [1, null, 2] }, false)).toBe(
      'c=&e=1&e=2',
    );
  });

  it('sends the whole message as .r when a query endpoint message is nested', () => {
    const msg = {
      query: {
        filter: { name: 'Shirt' },
        paging: { offset: 20, limit: 10 },
        sort: [{ fieldName: 'price', order: 'ASC' }],
      },
    };
    const q = encodeQuery(msg, true);
    expect(q).toBe(
      '.r=eyJxdWVyeSI6eyJmaWx0ZXIiOnsibmFtZSI6IlNoaXJ0In0sInBhZ2luZyI6eyJvZmZzZXQiOjIwLCJsaW1pdCI6MTB9LCJzb3J0IjpbeyJmaWVsZE5hbWUiOiJwcmljZSIsIm9yZGVyIjoiQVNDIn1dfX0',
    );
    expect(JSON.parse(base64urlDecode(q.slice(3)))).toEqual(msg);
  });

  it('keeps the simple form for a flat message and sends nothing for an empty one', () => {
    expect(encodeQuery({ id: 'a', n: 2 }, true)).toBe('id=a&n=2');
    expect(encodeQuery({}, true)).toBe('');
    // Wire §1.4: `queryProducts({filter: {}})` sends no query string at all.
    expect(encodeQuery({ query: { filter: {} } }, true)).toBe('');
    // …but a filter on null is one (`isEmpty`): its key is dotted, as in the platform SDK.
    const nameIsEmpty = { query: { filter: { name: null }, sort: [] } };
    expect(encodeQuery(nameIsEmpty, true)).toBe(`.r=${base64urlEncode(JSON.stringify(nameIsEmpty))}`);
  });

  it('reports whether a message needs the complex form', () => {
    expect(flattenQuery({ a: 1, b: ['x'] }).complex).toBe(false);
    expect(flattenQuery({ a: { b: 1 } }).complex).toBe(true);
    expect(flattenQuery({ a: [{ b: 1 }] }).complex).toBe(true);
    expect(flattenQuery({ a: { b: { c: [{ d: 1 }] } } }).complex).toBe(true);
    expect(flattenQuery({ a: { b: {} } }).complex).toBe(false);
    expect(flattenQuery({ a: { b: null } }).complex).toBe(true);
    expect(flattenQuery({ a: { b: [] } }).complex).toBe(true);
    expect(flattenQuery({ a: null, b: [] }).complex).toBe(false);
  });

  it('round-trips any text through base64url without padding or unsafe characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), (s) => {
        const enc = base64urlEncode(s);
        expect(enc).toMatch(/^[A-Za-z0-9_-]*$/);
        expect(base64urlDecode(enc)).toBe(s);
      }),
    );
  });

  it('encodes ASCII and other text alike as the UTF-8 bytes', () => {
    const texts = fc.oneof(fc.string({ unit: 'binary-ascii' }), fc.string({ unit: 'grapheme' }));
    fc.assert(
      fc.property(texts, (s) => {
        expect(base64urlEncode(s)).toBe(Buffer.from(s, 'utf8').toString('base64url'));
      }),
    );
    expect(base64urlEncode('{"q":"é"}')).toBe(Buffer.from('{"q":"é"}').toString('base64url'));
  });
});

describe('path parameters', () => {
  it('percent-encodes every segment value', () => {
    expect(fillPath('/v2/collections/slug/{slug}', { slug: 'a b/c?d&e' })).toEqual({
      path: '/v2/collections/slug/a%20b%2Fc%3Fd%26e',
    });
    expect(fillPath('/stores/v1/products/{product.id}', { product: { id: 'p1' } })).toEqual({
      path: '/stores/v1/products/p1',
    });
  });

  it('names the first missing or empty parameter', () => {
    expect(fillPath('/x/{id}', {})).toEqual({ missing: 'id', dot: false });
    expect(fillPath('/x/{id}', { id: '' })).toEqual({ missing: 'id', dot: false });
    expect(fillPath('/x/{a.b}/{c}', { c: 'z' })).toEqual({ missing: 'a.b', dot: false });
  });

  it('refuses . and .., which a URL parser would take as steps up the path', () => {
    expect(fillPath('/x/{id}', { id: '..' })).toEqual({ missing: 'id', dot: true });
    expect(fillPath('/x/{a}/{id}', { a: 'k', id: '.' })).toEqual({ missing: 'id', dot: true });
    // Dots inside a value are only characters.
    expect(fillPath('/x/{id}', { id: '...' })).toEqual({ path: '/x/...' });
    expect(fillPath('/x/{id}', { id: 'a..b' })).toEqual({ path: '/x/a..b' });
  });
});
