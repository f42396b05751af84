/**
 * The GraphQL endpoint's ninth audit, over raw HTTP on each storage: text that no storage can hold
 * (U+0000), written as a GraphQL string escape (`"\u0000"`), reaches no query. The router refuses
 * it in a request's JSON (variables included) before any route runs, but an escape in the
 * document only becomes the character once graphql-js parses it: the catalog fields, which call
 * the catalog's functions directly, sent it to PostgreSQL and answered `INTERNAL_ERROR` (logged
 * as a failure of the emulator), where REST answers a 400 naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls, visitorToken } from './http.ts';

const PATH = '/graphql/alpha';

describe.each(testBackends())('GraphQL audit 9 (%s)', (backend) => {
  let emu: TestEmulator;
  let visitor: string;
  const logged: string[] = [];
  beforeAll(async () => {
    emu = await startTestEmulator(backend, { log: (line: string) => logged.push(line) });
    visitor = await visitorToken(emu);
  });
  afterAll(() => emu?.stop());

  const { call } = jsonCalls(() => emu);
  const asVisitor = (query: string) => call('POST', PATH, { query }, { authorization: visitor });

  it('refuses a NUL written as a string escape with a 400 on the argument, as REST does, not an internal error', async () => {
    const rest = await call('GET', '/stores-reader/v1/products/%00', undefined, { authorization: visitor });
    expect(rest.status).toBe(400);
    const nul = 'must not contain the NUL character (U+0000)';
    for (const [query, field, path] of [
      ['{ product(id: "a\\u0000") { id } }', 'id', 'product'],
      ['{ collection(slug: "\\u0000") { id } }', 'slug', 'collection'],
      ['{ collection(id: "\\u0000") { id } }', 'id', 'collection'],
      ['{ products(filter: {name: "\\u0000"}) { metadata { total } } }', 'filter.name', 'products'],
      ['{ collections(filter: {slug: "\\u0000"}) { metadata { total } } }', 'filter.slug', 'collections'],
    ] as const) {
      const res = await asVisitor(query);
      expect(res.status).toBe(200);
      expect(res.body.errors).toHaveLength(1);
      const [error] = res.body.errors;
      expect(error.path).toEqual([path]);
      expect(error.extensions).toMatchObject({
        code: 'INVALID_ARGUMENT',
        status: 400,
        fieldViolations: [expect.objectContaining({ field, description: nul })],
      });
    }
    expect(logged.filter((l) => l.includes('GraphQL field'))).toEqual([]);
  });
  it('reads a sort whose order is null as ascending, in GraphQL and in REST, as proto3 JSON reads null', async () => {
    const names = (products: { name: string }[]) => products.map((p) => p.name);
    const gql = async (order: string) =>
      asVisitor(`{ products(sort: [{fieldName: "name", order: ${order}}]) { products { name } } }`);
    const asc = await gql('ASC');
    const none = await gql('null');
    expect(none.body.errors).toBeUndefined();
    expect(names(none.body.data.products.products)).toEqual(names(asc.body.data.products.products));
    const rest = (order: unknown) =>
      call(
        'POST',
        '/stores-reader/v1/products/query-platformized',
        { query: { sort: [{ fieldName: 'name', order }] } },
        { authorization: visitor },
      );
    const restNull = await rest(null);
    expect(restNull.status).toBe(200);
    expect(names(restNull.body.products)).toEqual(names((await rest('ASC')).body.products));
    expect((await rest('UP')).status).toBe(400);
  });
});
