/**
 * GraphQL's single-item readers given an empty id or slug answer as their REST readers do: a 400
 * INVALID_ARGUMENT naming the argument (REST: `id` must have at least 1 character), not a
 * not-found as if a product with that id had been looked for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator } from '../src/testing.ts';
import { jsonCalls, visitorToken } from './http.ts';

describe('GraphQL readers given an empty id', () => {
  let emu: TestEmulator;
  let visitor: string;
  beforeAll(async () => {
    emu = await startTestEmulator('pglite');
    visitor = await visitorToken(emu);
  });
  afterAll(() => emu?.stop());
  const { call } = jsonCalls(() => emu);
  const gql = (query: string) => call('POST', '/graphql/alpha', { query }, { authorization: visitor });

  it.each([
    ['product', '{ product(id: "") { id } }', 'id'],
    ['collection by id', '{ collection(id: "") { id } }', 'id'],
    ['collection by slug', '{ collection(slug: "") { id } }', 'slug'],
  ])('%s: INVALID_ARGUMENT on the argument, as REST', async (_, query, field) => {
    const res = await gql(query);
    expect(res.body.data?.[query.includes('product') ? 'product' : 'collection'] ?? null).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    const [error] = res.body.errors;
    expect(error.extensions.code).toBe('INVALID_ARGUMENT');
    expect(error.extensions.status).toBe(400);
    expect(error.extensions.fieldViolations).toEqual([
      expect.objectContaining({
        field,
        violatedRule: 'MIN_LENGTH',
        description: 'must have at least 1 character',
      }),
    ]);
  });
});
