/**
 * The GraphQL endpoint's third audit, over raw HTTP on each storage: the envelope of every kind of
 * answer, a visitor's and a merchant's view against the REST readers' (numbers, dates and media
 * included), the printed schema against the one executed, and the cost limits, among them those
 * that keep one request from costing many REST calls: at most one cart field per operation, and a
 * bound on the values all root fields' arguments hold together.
 */
import {
  buildClientSchema,
  buildSchema,
  type GraphQLObjectType,
  getIntrospectionQuery,
  getNamedType,
  isLeafType,
  printSchema,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORES_APP_ID } from '../src/domains/catalog/lookup.ts';
import { demoProductId } from '../src/domains/catalog/seed.ts';
import { LIMITS } from '../src/domains/graphql/limits.ts';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls, visitorToken } from './http.ts';

const PATH = '/graphql/alpha';

describe.each(testBackends())('GraphQL audit 3 (%s)', (backend) => {
  let emu: TestEmulator;
  let visitor: string;
  let sdl: string;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
    visitor = await visitorToken(emu);
    sdl = await (await fetch(emu.url + PATH)).text();
  });
  afterAll(() => emu?.stop());

  const { call, owner } = jsonCalls(() => emu);
  const gql = (auth: string, query: string, variables?: object, operationName?: string) =>
    call('POST', PATH, { query, variables, operationName }, { authorization: auth });
  const asVisitor = (query: string, variables?: object) => gql(visitor, query, variables);
  const asMerchant = (query: string, variables?: object) => gql(emu.demo.apiKey, query, variables);
  const codes = (body: any) => (body.errors ?? []).map((e: any) => e.extensions?.code);

  /** Every field of `type` (objects the path already went through left out), as a selection. */
  const everything = (type: string) => {
    const schema = buildSchema(sdl);
    const select = (t: GraphQLObjectType, seen: string[]): string =>
      Object.values(t.getFields())
        .flatMap((f) => {
          const named = getNamedType(f.type);
          if (isLeafType(named)) return [f.name];
          if (seen.includes(named.name)) return [];
          return [`${f.name} { ${select(named as GraphQLObjectType, [...seen, named.name])} }`];
        })
        .join(' ');
    return select(schema.getType(type) as GraphQLObjectType, [type]);
  };
  /** `rest` cut down to the shape of `answer` (absent keys as null; JSON fields whole). */
  const projected = (answer: any, rest: any, json: string[]): any => {
    if (Array.isArray(answer))
      return Array.isArray(rest) && rest.length === answer.length
        ? answer.map((a, i) => projected(a, rest[i], json))
        : rest;
    if (answer && typeof answer === 'object' && rest && typeof rest === 'object')
      return Object.fromEntries(
        Object.keys(answer).map((k) => [
          k,
          // A JSON field whole (a variant's `choices`, not a product option's list of them).
          json.includes(k) && !Array.isArray(answer[k])
            ? (rest[k] ?? null)
            : projected(answer[k], rest[k], json),
        ]),
      );
    return rest ?? null;
  };

  describe('the envelope', () => {
    it('answers syntax, validation and unknown fields as a 200 with errors and no data', async () => {
      for (const [query, code] of [
        ['{ products { ', 'GRAPHQL_PARSE_FAILED'],
        ['{ products { metadata } }', 'GRAPHQL_VALIDATION_FAILED'],
        ['{ nothingHere }', 'GRAPHQL_VALIDATION_FAILED'],
        // graphql-js refuses it when it executes (with `data: null`), after validation.
        ['subscription { products { metadata { total } } }', 'GRAPHQL_VALIDATION_FAILED'],
      ] as const) {
        const res = await asVisitor(query);
        expect(res.status).toBe(200);
        expect(res.body.data).toBeUndefined();
        expect(codes(res.body)).toEqual([code]);
        expect(res.body.errors[0].locations).toHaveLength(1);
      }
    });

    it('answers a resolver error with its platform code and the rest of the data', async () => {
      const res = await asVisitor(
        '{ product(id: "no-such-product") { id } collections { metadata { total } } }',
      );
      expect(res.status).toBe(200);
      expect(res.body.errors).toEqual([
        {
          message: 'Product with id "no-such-product" not found',
          locations: [{ line: 1, column: 3 }],
          path: ['product'],
          extensions: { code: 'PRODUCT_NOT_FOUND', status: 404, data: { productId: 'no-such-product' } },
        },
      ]);
      expect(res.body.data.product).toBeNull();
      expect(res.body.data.collections.metadata.total).toBeGreaterThan(0);
    });

    it('answers variables of the wrong type and ambiguous or unknown operations without data', async () => {
      const wrong = await asVisitor(
        'query ($l: Int) { products(paging: {limit: $l}) { metadata { total } } }',
        {
          l: 'ten',
        },
      );
      const several = await asVisitor('query A { __typename } query B { __typename }');
      const unknown = await gql(visitor, 'query A { __typename }', undefined, 'B');
      const chosen = await gql(visitor, 'query A { __typename } query B { __typename }', undefined, 'B');
      for (const res of [wrong, several, unknown]) {
        expect(res.status).toBe(200);
        expect(res.body.data).toBeUndefined();
        expect(codes(res.body)).toEqual(['BAD_USER_INPUT']);
      }
      expect(chosen.body).toEqual({ data: { __typename: 'Query' } });
    });

    it("refuses a body that is not a GraphQL request, and a caller without credentials, in the platform's envelope", async () => {
      const raw = (body: string, headers: Record<string, string>) =>
        fetch(emu.url + PATH, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body,
        });
      const cases: Array<[Response, number, string]> = [
        [await raw('not json', { authorization: visitor }), 400, 'MALFORMED_REQUEST'],
        [await raw('[{"query":"{ __typename }"}]', { authorization: visitor }), 400, 'MALFORMED_REQUEST'],
        [await raw('{"query":"{ __typename }"}', {}), 401, 'UNAUTHENTICATED'],
        [await raw('{"query":"{ __typename }"}', { authorization: 'not-a-token' }), 401, 'UNAUTHENTICATED'],
      ];
      for (const [res, status, code] of cases) {
        expect(res.status).toBe(status);
        const body = await res.json();
        expect(body.details.applicationError.code).toBe(code);
        expect(body.message).toBe(body.details.applicationError.description);
      }
      const missing = await call('POST', PATH, { variables: {} }, { authorization: visitor });
      expect(missing.status).toBe(400);
      expect(missing.body.details.validationError.fieldViolations[0].field).toBe('query');
    });

    it('prints the schema on GET, executes on POST, and knows no other version', async () => {
      const get = await fetch(`${emu.url + PATH}?query=${encodeURIComponent('{ __typename }')}`);
      expect(get.status).toBe(200);
      expect(get.headers.get('content-type')).toContain('text/plain');
      expect(await get.text()).toBe(sdl);
      const beta = await call(
        'POST',
        '/graphql/beta',
        { query: '{ __typename }' },
        { authorization: visitor },
      );
      expect(beta.status).toBe(404);
      expect(beta.body.details.applicationError.code).toBe('NOT_FOUND');
    });
  });

  describe('the printed schema', () => {
    it('is the schema the endpoint executes, as introspection answers it', async () => {
      const res = await asVisitor(getIntrospectionQuery({ descriptions: true, specifiedByUrl: true }));
      expect(res.body.errors).toBeUndefined();
      expect(printSchema(buildClientSchema(res.body.data))).toBe(sdl);
    });
  });

  describe('what each caller sees', () => {
    const restProducts = (auth: string, merchantData: boolean) =>
      call(
        'POST',
        '/stores-reader/v1/products/query-platformized',
        {
          includeVariants: true,
          includeMerchantSpecificData: merchantData,
          query: { paging: { limit: 100 } },
        },
        { authorization: auth },
      );

    it('gives a visitor and a merchant what REST gives them, field for field', async () => {
      for (const [auth, merchantData] of [
        [visitor, false],
        [emu.demo.apiKey, true],
      ] as const) {
        const res = await gql(
          auth,
          `query ($m: Boolean) { products(paging: {limit: 100}, includeMerchantSpecificData: $m) {
            products { ${everything('Product')} } metadata { count offset total tooManyToCount } } }`,
          { m: merchantData },
        );
        expect(res.body.errors).toBeUndefined();
        const rest = await restProducts(auth, merchantData);
        expect(rest.status).toBe(200);
        const answer = res.body.data.products;
        expect(answer).toEqual(projected(answer, rest.body, ['choices', 'options']));
        const costs = answer.products.filter((p: any) => p.costAndProfitData);
        expect(costs.length > 0).toBe(merchantData);
      }
    });

    it('gives collections as REST does, hidden ones to merchants only', async () => {
      for (const auth of [visitor, emu.demo.apiKey]) {
        const res = await gql(
          auth,
          `{ collections(paging: {limit: 100}) { collections { ${everything('Collection')} } } }`,
        );
        expect(res.body.errors).toBeUndefined();
        const rest = await call(
          'POST',
          '/v2/collections/query',
          { query: { paging: { limit: 100 } } },
          { authorization: auth },
        );
        const answer = res.body.data.collections.collections;
        expect(answer).toEqual(projected(answer, rest.body.collections, []));
        expect(answer.some((c: any) => !c.visible)).toBe(auth !== visitor);
      }
    });

    it('keeps hidden products and merchant data from a visitor, as REST does', async () => {
      const hidden = await owner('POST', '/stores-reader/v1/products/query-platformized', {
        includeHiddenProducts: true,
        query: { filter: { visible: false } },
      });
      const id = hidden.body.products[0].id as string;
      const seen = await asVisitor(`{ product(id: "${id}") { id } }`);
      expect(codes(seen.body)).toEqual(['PRODUCT_NOT_FOUND']);
      expect((await asMerchant(`{ product(id: "${id}") { id visible } }`)).body.data.product).toEqual({
        id,
        visible: false,
      });
      const hiddenToo = await asVisitor('{ products(includeHiddenProducts: true) { metadata { total } } }');
      const cost = await asVisitor(
        `{ product(id: "${demoProductId('dinner-plate')}", includeMerchantSpecificData: true) { id } }`,
      );
      for (const res of [hiddenToo, cost]) expect(codes(res.body)).toEqual(['PERMISSION_DENIED']);
      const listed = await asVisitor(`query ($f: JSON) { products(filter: $f) { metadata { total } } }`, {
        f: { id: { $eq: id } },
      });
      expect(listed.body.data.products.metadata.total).toBe(0);
    });

    it("runs cart mutations with REST's rules: a merchant's key has no current cart", async () => {
      const res = await asMerchant(
        `mutation { addToCurrentCart(lineItems: [{catalogReference: {appId: "${STORES_APP_ID}", catalogItemId: "${demoProductId('dinner-plate')}"}}]) { id } }`,
      );
      expect(codes(res.body)).toEqual(['PERMISSION_DENIED']);
    });
  });

  describe('limits', () => {
    /** `__type`, `ofType` in `ofType`…, then `name`: `depth` fields nested. */
    const nested = (depth: number) =>
      `{ __type(name: "Query") { ${'ofType { '.repeat(depth - 2)}name${' }'.repeat(depth - 1)} }`;

    it('refuses each oversized document with its own code and limit', async () => {
      const fields = (n: number) => Array.from({ length: n }, (_, i) => `a${i}: __typename`).join(' ');
      const cases: Array<[string, string, Record<string, number>]> = [
        [nested(LIMITS.maxDepth + 1), 'QUERY_TOO_DEEP', { maxDepth: LIMITS.maxDepth }],
        [`{ ${fields(LIMITS.maxFields + 1)} }`, 'QUERY_TOO_COMPLEX', { maxFields: LIMITS.maxFields }],
        [
          `{ ${Array.from({ length: LIMITS.maxRootFields + 1 }, (_, i) => `p${i}: products { metadata { total } }`).join(' ')} }`,
          'QUERY_TOO_COMPLEX',
          { maxRootFields: LIMITS.maxRootFields },
        ],
      ];
      for (const [query, code, limit] of cases) {
        const res = await asVisitor(query);
        expect(res.status).toBe(200);
        expect(res.body.data).toBeUndefined();
        expect(res.body.errors).toHaveLength(1);
        expect(res.body.errors[0].extensions).toEqual({ code, ...limit });
      }
      expect((await asVisitor(nested(LIMITS.maxDepth))).body.errors).toBeUndefined();
    });

    it('refuses a document over the token limit, fragment cycles, and deep introspection', async () => {
      const long = await asVisitor(`{ ${'__typename '.repeat(LIMITS.maxTokens + 1)}}`);
      expect(codes(long.body)).toEqual(['GRAPHQL_PARSE_FAILED']);
      expect(long.body.errors[0].message).toContain(String(LIMITS.maxTokens));
      const cycle = await asVisitor('{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }');
      expect(codes(cycle.body)).toContain('GRAPHQL_VALIDATION_FAILED');
      const intro = await asVisitor(
        '{ __schema { types { fields { type { fields { type { fields { type { fields { name } } } } } } } } } }',
      );
      expect(codes(intro.body)).toEqual(['GRAPHQL_VALIDATION_FAILED']);
    });

    it("pages catalog lists within REST's bounds", async () => {
      for (const paging of ['{limit: 101}', '{limit: -1}', '{offset: -1}']) {
        const res = await asVisitor(`{ products(paging: ${paging}) { metadata { total } } }`);
        expect(codes(res.body)).toEqual(['INVALID_ARGUMENT']);
        expect(res.body.errors[0].extensions.status).toBe(400);
      }
    });

    const add = (alias: string, lines: string) => `${alias}: addToCurrentCart(lineItems: ${lines}) { id }`;
    const plate = `{catalogReference: {appId: "${STORES_APP_ID}", catalogItemId: "${demoProductId('dinner-plate')}"}}`;

    it('refuses an operation with more than one cart field, and runs none of them', async () => {
      const buyer = await visitorToken(emu);
      const two = await gql(buyer, `mutation { ${add('a', `[${plate}]`)} ${add('b', `[${plate}]`)} }`);
      expect(two.status).toBe(200);
      expect(two.body.data).toBeUndefined();
      expect(two.body.errors).toHaveLength(1);
      expect(two.body.errors[0].extensions).toEqual({ code: 'QUERY_TOO_COMPLEX', maxCartFields: 1 });
      const cart = await call('GET', '/ecom/v1/carts/current', undefined, { authorization: buyer });
      expect(cart.status).toBe(404);
      const reads = await gql(buyer, '{ currentCart { id } estimateCurrentCartTotals { currency } }');
      expect(reads.body.errors[0].extensions).toEqual({ code: 'QUERY_TOO_COMPLEX', maxCartFields: 1 });
      // One field twice under one name is one call.
      const once = await gql(buyer, `mutation { ${add('a', `[${plate}]`)} ${add('a', `[${plate}]`)} }`);
      expect(once.body.errors).toBeUndefined();
    });

    it('bounds the values all root fields take together, variables included', async () => {
      const filter = { $or: Array.from({ length: 200 }, (_, i) => ({ name: { $eq: `n${i}` } })) };
      const roots = (n: number) =>
        `query ($f: JSON) { ${Array.from({ length: n }, (_, i) => `p${i}: products(filter: $f) { metadata { total } }`).join(' ')} }`;
      const one = await asVisitor(roots(1), { f: filter });
      expect(one.body.errors).toBeUndefined();
      const ten = await asVisitor(roots(10), { f: filter });
      expect(ten.status).toBe(200);
      expect(ten.body.data).toBeUndefined();
      expect(ten.body.errors).toHaveLength(1);
      expect(ten.body.errors[0].extensions).toEqual({
        code: 'QUERY_TOO_COMPLEX',
        maxInputValues: LIMITS.maxInputValues,
      });
      // The biggest REST add-to-cart (300 lines) fits.
      const buyer = await visitorToken(emu);
      const lines = Array.from({ length: 300 }, () => ({
        quantity: 1,
        catalogReference: { appId: STORES_APP_ID, catalogItemId: demoProductId('dinner-plate'), options: {} },
      }));
      const big = await gql(
        buyer,
        'mutation ($l: [LineItemInput!]!) { addToCurrentCart(lineItems: $l) { id } }',
        {
          l: lines,
        },
      );
      expect(big.body.errors).toBeUndefined();
    });
  });
});
