/**
 * Findings of the fifteenth audit of the domain modules (every call of cart, products,
 * collections and redirects compared with the wire protocol, bad arguments included): each test
 * failed before its fix.
 */
import { describe, expect, it } from 'vitest';
import { createClient } from './client.ts';
import type { ShopkitError } from './http/errors.ts';
import * as collections from './modules/collections.ts';
import * as products from './modules/products.ts';
import * as redirects from './modules/redirects.ts';

/** A client that records what it sends and answers as the platform does to a query that is no object. */
function shop() {
  const sent: { method: string; url: URL; body?: string }[] = [];
  const reported: ShopkitError[] = [];
  const client = createClient({
    baseUrl: 'http://h',
    fetch: (async (input: string, init: RequestInit) => {
      const url = new URL(input);
      sent.push({ method: init.method!, url, body: init.body as string | undefined });
      if (url.searchParams.has('query'))
        return Response.json(
          {
            message: 'INVALID_ARGUMENT',
            details: {
              validationError: { fieldViolations: [{ field: 'query', description: 'must be an object' }] },
            },
          },
          { status: 400 },
        );
      return Response.json({ redirectSession: { id: 's', fullUrl: 'http://h/r/s' } });
    }) as typeof fetch,
    onError: (error) => reported.push(error),
    modules: { products, collections, redirects },
  });
  return { client, sent, reported };
}

describe('queryProducts with a query that is no object', () => {
  // `'filter' in 'x'` threw a TypeError at once, out of the call and past `onError`, where
  // queryCollections sends the query and the platform refuses it as INVALID_ARGUMENT.
  it.each([
    ['a string', 'name:Shirt'],
    ['a number', 5],
    ['true', true],
  ])('is sent as the query and refused as the platform refuses it (%s)', async (_, query) => {
    const { client, sent, reported } = shop();
    const call = () => (client.products.queryProducts as (q: unknown) => Promise<unknown>)(query);
    let result: Promise<unknown> | undefined;
    expect(() => {
      result = call();
    }).not.toThrow();
    const error = (await result!.catch((e) => e)) as ShopkitError;
    expect(error.name).toBe('ValidationError');
    expect(error.message).toBe('INVALID_ARGUMENT: "query" must be an object');
    expect(reported).toEqual([error]);
    expect(sent.map((s) => [s.method, s.url.pathname, s.url.searchParams.get('query')])).toEqual([
      ['GET', '/stores-reader/v1/products/query-platformized', String(query)],
    ]);
    // Options alone still make a builder.
    expect(typeof client.products.queryProducts({ includeVariants: true }).find).toBe('function');
  });
});

describe('createRedirectSession with callbacks that are no object', () => {
  // A string's characters were checked as callbacks one by one: `"options.callbacks.0" must be an
  // absolute http(s) URL, "options.callbacks.1" …`, one violation per character of the URL; an
  // array's entries as callbacks named 0, 1, … (a list of good URLs, or a number, was sent).
  it.each([
    ['a URL', 'https://shop.example/done'],
    ['a list of URLs', ['https://shop.example/done']],
    ['a number', 5],
  ])('are one violation of options.callbacks, and nothing is sent (%s)', async (_, callbacks) => {
    const { client, sent, reported } = shop();
    const error = (await client.redirects
      .createRedirectSession({ login: {}, callbacks } as unknown as redirects.RedirectSessionOptions)
      .catch((e) => e)) as ShopkitError & { violations: unknown[] };
    expect(error.name).toBe('ValidationError');
    expect(error.violations).toEqual([{ field: 'options.callbacks', description: 'must be an object' }]);
    expect(error.message).toBe('INVALID_ARGUMENT: "options.callbacks" must be an object');
    expect(reported).toEqual([error]);
    expect(sent).toEqual([]);
    // Callbacks left out or null are none.
    await client.redirects.createRedirectSession({ login: {} });
    await client.redirects.createRedirectSession({
      login: {},
      callbacks: null,
    } as unknown as redirects.RedirectSessionOptions);
    expect(sent.map((s) => JSON.parse(s.body!))).toEqual([{ login: {} }, { login: {}, callbacks: null }]);
  });
});
