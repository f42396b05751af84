import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  address,
  addressFromWire,
  addressToWire,
  date,
  dateFromWire,
  dateToWire,
  float,
  floatFromWire,
  floatToWire,
  image,
  imageFromWire,
  imageToWire,
  lean,
  nest,
  urlFromWire,
  urlToWire,
  videoFromWire,
  videoToWire,
  walk,
} from './transforms.ts';

describe('non-finite numbers', () => {
  it('travel as the strings NaN, Infinity, -Infinity and come back as numbers', () => {
    expect([Number.NaN, Infinity, -Infinity, 1.5, null].map(floatToWire)).toEqual([
      'NaN',
      'Infinity',
      '-Infinity',
      1.5,
      null,
    ]);
    expect(['NaN', 'Infinity', '-Infinity', '12', 3].map(floatFromWire)).toEqual([
      Number.NaN,
      Infinity,
      -Infinity,
      '12',
      3,
    ]);
  });

  it('round-trip every double', () => {
    // JSON itself cannot carry -0, so it is left out.
    fc.assert(
      fc.property(
        fc.double().filter((n) => !Object.is(n, -0)),
        (n) => {
          expect(floatFromWire(JSON.parse(JSON.stringify(floatToWire(n))))).toBe(n);
        },
      ),
    );
  });
});

describe('timestamps', () => {
  it('round-trip every valid date through ISO strings', () => {
    fc.assert(
      fc.property(
        fc.date({ noInvalidDate: true, min: new Date(-8.64e15 + 1), max: new Date(8.64e15 - 1) }),
        (d) => {
          expect((dateFromWire(dateToWire(d)) as Date).getTime()).toBe(d.getTime());
        },
      ),
    );
  });
  it('turn an empty string into undefined', () => {
    expect(dateFromWire('')).toBeUndefined();
  });
});

describe('images (wix:image media references)', () => {
  it('parse a media reference into the wire object', () => {
    expect(imageToWire('wix:image://v1/abc.png/my%20shirt.png#originWidth=800&originHeight=600')).toEqual({
      id: 'abc.png',
      width: 800,
      height: 600,
      altText: 'my shirt.png',
      filename: 'my shirt.png',
      url: 'wix:image://v1/abc.png/my%20shirt.png#originWidth=800&originHeight=600',
    });
    expect(imageToWire('image://v1/x#originWidth=1&originHeight=2')).toEqual({
      id: 'x',
      width: 1,
      height: 2,
    });
    expect(imageToWire('https://cdn.example/a.jpg')).toEqual({ url: 'https://cdn.example/a.jpg' });
    // A name that is not percent-encoded text is kept as it is, not thrown on.
    expect(imageToWire('wix:image://v1/abc.png/50%off.png#originWidth=1&originHeight=2')).toMatchObject({
      id: 'abc.png',
      filename: '50%off.png',
      altText: '50%off.png',
    });
  });

  it('build a reference from a wire object with an id, and a URL otherwise', () => {
    expect(
      imageFromWire({
        id: 'abc',
        url: 'https://x/abc',
        width: 10,
        height: 20,
        altText: 'a b',
        focalPoint: { x: 1, y: 2 },
      }),
    ).toBe('wix:image://v1/abc/a%20b#originWidth=10&originHeight=20');
    expect(imageFromWire({ url: 'https://x/y.png', width: 1 })).toBe('https://x/y.png');
  });

  it('round-trip id, size and name', () => {
    const id = fc.stringMatching(/^[A-Za-z0-9_.~-]{1,20}$/);
    fc.assert(
      fc.property(
        id,
        fc.nat(10000),
        fc.nat(10000),
        fc.string({ minLength: 1, maxLength: 20 }),
        (id, width, height, name) => {
          const ref = imageFromWire({ id, width, height, filename: name }) as string;
          expect(imageToWire(ref)).toMatchObject({ id, width, height, filename: name });
        },
      ),
    );
  });
});

describe('videos', () => {
  it('carry the poster in the fragment, preferring the second poster', () => {
    const wire = {
      id: 'v1',
      filename: 'clip.mp4',
      posters: [
        { id: 'p0', width: 1, height: 1 },
        { id: 'p1', width: 640, height: 360 },
      ],
    };
    const ref = videoFromWire(wire) as string;
    expect(ref).toBe('wix:video://v1/v1/clip.mp4#posterUri=p1&posterWidth=640&posterHeight=360');
    expect(videoToWire(ref)).toEqual({
      id: 'v1',
      filename: 'clip.mp4',
      posters: [{ id: 'p1', width: 640, height: 360 }],
    });
    expect(videoFromWire({ url: 'https://v/x.mp4' })).toBe('https://v/x.mp4');
  });
});

describe('addresses, page URLs and field masks', () => {
  it('rename address fields both ways', () => {
    const sdk = {
      addressLine1: '1 Main St',
      location: { latitude: 1, longitude: 2 },
      formatted: '1 Main St, X',
      city: 'X',
    };
    const wire = addressToWire(sdk);
    expect(wire).toEqual({
      addressLine: '1 Main St',
      geocode: { latitude: 1, longitude: 2 },
      formattedAddress: '1 Main St, X',
      city: 'X',
    });
    expect(addressFromWire(wire)).toEqual(sdk);
  });
  it('convert a page URL', () => {
    expect(urlToWire('https://shop.example/p/a?x=1')).toEqual({
      relativePath: '/p/a',
      url: 'https://shop.example/p/a?x=1',
    });
    expect(urlFromWire({ relativePath: '/p/a', url: 'https://shop.example/p/a' })).toBe(
      'https://shop.example/p/a',
    );
  });
});

describe('transform trees', () => {
  it('apply only at declared fields, through arrays and maps', () => {
    const spec = {
      cart: { createdDate: date, lineItems: { physicalProperties: { weight: float }, image } },
      data: { '*': { dateValue: date } },
    };
    const out = walk(
      {
        cart: {
          createdDate: '2026-01-02T03:04:05.000Z',
          note: 'NaN',
          lineItems: [
            { physicalProperties: { weight: 'Infinity' }, image: { id: 'i', width: 1, height: 2 } },
            { physicalProperties: { weight: 2 } },
          ],
        },
        data: { a: { dateValue: '2020-01-01T00:00:00.000Z' }, b: { dateValue: '' } },
      },
      spec,
      1,
    );
    expect(out.cart.createdDate).toEqual(new Date('2026-01-02T03:04:05.000Z'));
    expect(out.cart.note).toBe('NaN'); // undeclared: untouched
    expect(out.cart.lineItems[0].physicalProperties.weight).toBe(Infinity);
    expect(out.cart.lineItems[0].image).toBe('wix:image://v1/i#originWidth=1&originHeight=2');
    expect(out.cart.lineItems[1].physicalProperties.weight).toBe(2);
    expect(out.data.a.dateValue).toEqual(new Date('2020-01-01T00:00:00.000Z'));
    expect('dateValue' in out.data.b).toBe(false);
  });

  it('rename an address before its geocode floats on requests, and after them on responses', () => {
    const spec = { shippingAddress: nest(address, { geocode: { latitude: float } }) };
    expect(walk({ shippingAddress: { location: { latitude: Number.NaN } } }, spec, 0)).toEqual({
      shippingAddress: { geocode: { latitude: 'NaN' } },
    });
    expect(walk({ shippingAddress: { geocode: { latitude: 'Infinity' } } }, spec, 1)).toEqual({
      shippingAddress: { location: { latitude: Infinity } },
    });
  });

  it('drop float leaves, and subtrees left empty, in the lean form', () => {
    const spec = {
      a: { b: float, c: date },
      d: { e: float },
      f: nest(address, { geocode: { latitude: float } }),
    };
    const leaner = lean(spec);
    expect(leaner).toEqual({ a: { c: date }, f: [address[0], address[1], {}] });
    expect(lean(spec)).toBe(leaner); // computed once
    expect(lean({ x: float })).toEqual({});
  });
});

describe('walks', () => {
  const at = '2020-01-01T00:00:00.000Z';

  it('go through arrays of arrays, leaving an element that becomes undefined in place', () => {
    const out = walk({ grid: [[at, ''], [], [at]] }, { grid: date }, 1);
    expect(out.grid).toEqual([[new Date(at), undefined], [], [new Date(at)]]);
    expect(out.grid[0]).toHaveLength(2);
    expect(walk({ rows: [[{ at }], [{ at: '' }]] }, { rows: { at: date } }, 1)).toEqual({
      rows: [[{ at: new Date(at) }], [{}]],
    });
  });

  it('walk every value of a map inside an array, and arrays inside a map', () => {
    const spec = { items: { attrs: { '*': { at: date } } } };
    const out = walk(
      { items: [{ attrs: { a: { at }, b: [{ at }, { at: '' }], c: null, d: 'x' } }, { attrs: {} }, {}] },
      spec,
      1,
    );
    expect(out).toEqual({
      items: [
        { attrs: { a: { at: new Date(at) }, b: [{ at: new Date(at) }, {}], c: null, d: 'x' } },
        { attrs: {} },
        {},
      ],
    });
    expect(walk({ '*': { a: 'Infinity' } }, { '*': float }, 1)).toEqual({ '*': { a: 'Infinity' } });
    expect(walk({ m: { x: 'NaN', y: [1, 'Infinity'] } }, { m: { '*': float } }, 1)).toEqual({
      m: { x: Number.NaN, y: [1, Infinity] },
    });
  });

  it('apply a nested kind to every element of an array, in the order of the direction', () => {
    const spec = { addresses: nest(address, { geocode: { latitude: float } }) };
    expect(walk({ addresses: [{ location: { latitude: Infinity } }, { city: 'X' }, null] }, spec, 0)).toEqual(
      { addresses: [{ geocode: { latitude: 'Infinity' } }, { city: 'X' }, null] },
    );
    expect(walk({ addresses: [[{ geocode: { latitude: 'NaN' } }], { addressLine: 'a' }] }, spec, 1)).toEqual({
      addresses: [[{ location: { latitude: Number.NaN } }], { addressLine1: 'a' }],
    });
  });

  it('delete a field whose transform gives undefined, and request fields that hold undefined', () => {
    const spec = { a: date, b: { c: date }, d: address, e: { f: float } };
    expect(walk({ a: '', b: { c: '' }, keep: '' }, spec, 1)).toEqual({ b: {}, keep: '' });
    const msg = walk(
      { a: undefined, b: { c: undefined }, d: undefined, e: undefined, keep: undefined },
      spec,
      0,
    );
    expect(Object.keys(msg)).toEqual(['b', 'keep']);
    expect(Object.keys(msg.b)).toEqual([]);
    expect(
      walk({ img: { url: 'https://x/y.png' } }, { img: nest(image, { urlExpirationDate: date }) }, 1),
    ).toEqual({
      img: 'https://x/y.png',
    });
    expect(walk({ img: {} }, { img: image }, 1)).toEqual({});
  });

  it('leave a response without the declared fields, or with other types in them, as it is', () => {
    const spec = { cart: { createdDate: date, lineItems: { image, price: { amount: float } } } };
    for (const body of [{}, { cart: null }, { cart: 'x' }, { cart: {} }, { cart: { lineItems: [] } }]) {
      const copy = structuredClone(body);
      expect(walk(body, spec, 1)).toEqual(copy);
      expect(walk(body, lean(spec), 1)).toEqual(copy);
    }
    expect(walk({ cart: { lineItems: [null, 3, { price: null }] } }, spec, 1)).toEqual({
      cart: { lineItems: [null, 3, { price: null }] },
    });
    expect(walk(null, spec, 1)).toBe(null);
    expect(walk([{ cart: { createdDate: at } }], spec, 1)).toEqual([{ cart: { createdDate: new Date(at) } }]);
  });

  it('change the message in place and give the same objects back', () => {
    const spec = { cart: { createdDate: date, lineItems: { physicalProperties: { weight: float } } } };
    const body = { cart: { createdDate: at, lineItems: [{ physicalProperties: { weight: 'NaN' } }] } };
    const { cart } = body;
    const items = cart.lineItems;
    expect(walk(body, spec, 1)).toBe(body);
    expect(body.cart).toBe(cart);
    expect(body.cart.lineItems).toBe(items);
    expect(items[0]!.physicalProperties.weight).toBeNaN();
    expect(body.cart.createdDate).toEqual(new Date(at));
  });

  it('give the same result from a spec and its lean form when no float is non-finite', () => {
    const spec = {
      products: {
        price: { price: float, discountedPrice: float },
        lastUpdated: date,
        media: { image: nest(image, { focalPoint: { x: float } }) },
      },
    };
    const body = () => ({
      products: [
        {
          price: { price: 1.5 },
          lastUpdated: at,
          media: { image: { id: 'i', width: 1, height: 2, focalPoint: { x: 0.5 } } },
        },
        { price: { discountedPrice: 2 }, media: {} },
      ],
    });
    const full = walk(body(), spec, 1);
    expect(walk(body(), lean(spec), 1)).toEqual(full);
    expect(full.products[0].media.image).toBe('wix:image://v1/i#originWidth=1&originHeight=2');
  });
});

describe('kinds on odd values', () => {
  it('keep strings that only look like names of numbers', () => {
    expect(['toString', 'nan', '+Infinity', ' NaN', 'Infinity '].map(floatFromWire)).toEqual([
      'toString',
      'nan',
      '+Infinity',
      ' NaN',
      'Infinity ',
    ]);
  });

  it('read timestamps exactly as the Date constructor does', () => {
    for (const s of [
      '2026-11-21T04:03:38.546Z',
      '2021-02-31T00:00:00.000Z',
      '2020-01-01T24:00:00.000Z',
      '0050-01-01T00:00:00.000Z',
      '2020-01-01T00:00:00Z',
      '2020-01-01T00:00:00.000+02:00',
      '2020-01-01',
      'not a date',
    ])
      expect(Object.is((dateFromWire(s) as Date).getTime(), new Date(s).getTime())).toBe(true);
  });

  it('read image sizes of zero and leave missing ones out', () => {
    expect(imageToWire('wix:image://v1/a#originWidth=0&originHeight=')).toEqual({
      id: 'a',
      width: 0,
      height: undefined,
    });
    expect(imageToWire('wix:image://v1/a')).toEqual({ id: 'a', width: undefined, height: undefined });
  });
});
