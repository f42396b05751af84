/**
 * GraphQL (wire §5.7, spec 7): `POST /graphql/{version}` executes `{query, variables,
 * operationName}` with graphql-js against the schema in `schema.ts`; `GET /graphql/{version}`
 * answers the schema as SDL. Versions other than those in `VERSIONS` are unknown routes (404).
 *
 * Callers and their rights are the REST routes': the POST needs credentials (401 without, as on
 * REST), and resolvers call the same catalog functions or cart routes with the caller's identity.
 * Answers follow GraphQL over HTTP with `application/json`: a body that is not a GraphQL request is
 * the platform's 400 envelope; syntax, validation and resolver errors are a 200 with
 * `errors: [{message, locations, path, extensions: {code, …}}]`, where a resolver's platform error
 * keeps its code (`OWNED_CART_NOT_FOUND`, `PERMISSION_DENIED`, `INVALID_ARGUMENT` with its field
 * violations). `limits.ts` caps the document's size, depth and breadth, its cart fields, and the
 * values its root fields take (variables substituted) before anything runs.
 * @module
 */
import {
  execute,
  GraphQLError,
  type GraphQLFormattedError,
  getOperationAST,
  parse,
  printSchema,
  validate,
} from 'graphql';
import { type Context, Hono } from 'hono';
import type { Domain, Emulator } from '../../context.ts';
import { storageUnavailable, transactionConflict } from '../../db/index.ts';
import { ApiError } from '../../http/errors.ts';
import { FAMILY, Router } from '../../http/router.ts';
import { z } from '../../http/validate.ts';
import { cart } from '../cart/index.ts';
import { inputLimit, LIMITS, queryLimits } from './limits.ts';
import { buildGraphqlSchema, CART_FIELDS, type GraphqlContext } from './schema.ts';

/** The API versions served; the platform's default (and only documented) one is `alpha`. */
const VERSIONS = ['alpha'] as const;

/** Any JSON object (a record's type is named "record" in violations, an object's "object"). */
const jsonObject = () => z.object({}).catchall(z.unknown());

/** A GraphQL-over-HTTP request body. */
const request = z
  .object({
    query: z.string(),
    variables: jsonObject().nullable().optional(),
    operationName: z.string().nullable().optional(),
    extensions: jsonObject().nullable().optional(),
  })
  .strict();

/**
 * The code of a GraphQL error that carries none of its own, by the phase that raised it (the names
 * other GraphQL servers use; execution errors without a path are about the variables).
 */
type Phase = 'GRAPHQL_PARSE_FAILED' | 'GRAPHQL_VALIDATION_FAILED' | 'BAD_USER_INPUT' | 'INTERNAL_ERROR';

/**
 * One error as sent: a platform error thrown by a resolver keeps its message, code, HTTP status and
 * details; storage that is down or a transaction conflict is `UNAVAILABLE` (status 503, as REST
 * answers it); any other is logged and sent as `INTERNAL_ERROR` without its message.
 */
function toWire(emu: Emulator, e: GraphQLError, phase: Phase): GraphQLFormattedError {
  const where = {
    ...(e.locations ? { locations: e.locations } : {}),
    ...(e.path ? { path: e.path } : {}),
  };
  const cause = e.originalError;
  if (cause instanceof ApiError) {
    const d = cause.details;
    const extensions =
      'applicationError' in d
        ? {
            code: d.applicationError.code,
            status: cause.status,
            ...(Object.keys(d.applicationError.data).length ? { data: d.applicationError.data } : {}),
          }
        : {
            code: 'INVALID_ARGUMENT',
            status: cause.status,
            fieldViolations: d.validationError.fieldViolations,
          };
    return { message: cause.message, ...where, extensions };
  }
  // Storage down or restarting, or a transaction ended for a concurrent one's sake (nothing
  // written): retryable, as the REST routes' 503 says; `INTERNAL_ERROR` told clients not to retry.
  if (cause && (storageUnavailable(cause) || transactionConflict(cause))) {
    emu.log(`[emulator] GraphQL field ${e.path?.join('.') ?? '?'} failed: ${cause.message}`);
    const description = transactionConflict(cause)
      ? 'A concurrent request conflicted with this one; nothing was changed, and it can be sent again'
      : 'Service unavailable';
    return { message: description, ...where, extensions: { code: 'UNAVAILABLE', status: 503 } };
  }
  if (cause && !(cause instanceof GraphQLError)) {
    emu.log(`[emulator] GraphQL field ${e.path?.join('.') ?? '?'} failed: ${cause.message}`);
    return { message: 'Internal error', ...where, extensions: { code: 'INTERNAL_ERROR' } };
  }
  return { message: e.message, ...where, extensions: { code: phase, ...e.extensions } };
}

/**
 * The current-cart API as the caller: the cart domain's own routes on a private app, called in
 * process with the caller's `Authorization` and `wix-site-id`, so that GraphQL shares their rules,
 * transactions, events and errors (thrown through as `ApiError`). Resolves with the REST answer.
 */
function currentCartApi(emu: Emulator) {
  const app = new Hono();
  cart.routes(new Router(app, emu), emu);
  app.onError((error) => {
    throw error;
  });
  const base = `${FAMILY.cart[0]}/v1/carts/current`;
  return (c: Context): GraphqlContext['cart'] =>
    async (method, action = '', body) => {
      const headers = new Headers({ 'content-type': 'application/json' });
      for (const name of ['authorization', 'wix-site-id']) {
        const value = c.req.header(name);
        if (value !== undefined) headers.set(name, value);
      }
      const res = await app.request(base + action, {
        method,
        headers,
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return (await res.json()) as Record<string, unknown>;
    };
}

export const graphql: Domain = {
  name: 'graphql',
  migrations: [],
  routes(router, emu) {
    const schema = buildGraphqlSchema();
    const sdl = printSchema(schema);
    const cartAs = currentCartApi(emu);
    const limits = [queryLimits(CART_FIELDS)];
    for (const version of VERSIONS) {
      const path = `/graphql/${version}`;
      router.route({
        method: 'GET',
        family: FAMILY.none,
        path,
        access: 'public',
        handler: () => new Response(sdl, { headers: { 'Content-Type': 'text/plain; charset=utf-8' } }),
      });
      router.route({
        method: 'POST',
        family: FAMILY.none,
        path,
        access: 'anyone',
        schema: request,
        async handler({ msg, identity, c }) {
          let document: ReturnType<typeof parse>;
          try {
            document = parse(msg.query, { maxTokens: LIMITS.maxTokens });
          } catch (e) {
            // The parser recurses; the token cap keeps it off the stack's end, this keeps a 200 if not.
            const error =
              e instanceof GraphQLError ? e : new GraphQLError('The query nests too deeply to parse');
            return { errors: [toWire(emu, error, 'GRAPHQL_PARSE_FAILED')] };
          }
          // Costs first, so that graphql-js's own rules only ever walk a bounded document.
          const refused = validate(schema, document, limits);
          const invalid = refused.length ? refused : validate(schema, document);
          if (invalid.length)
            return { errors: invalid.map((e) => toWire(emu, e, 'GRAPHQL_VALIDATION_FAILED')) };
          // graphql-js refuses a subscription (the schema has none) only as it executes, with
          // `data: null`; it is a request the schema cannot serve, refused like one it does not know.
          const op = getOperationAST(document, msg.operationName);
          if (op && !schema.getRootType(op.operation))
            return {
              errors: [
                toWire(
                  emu,
                  new GraphQLError(`This schema has no ${op.operation} operations`, { nodes: op }),
                  'GRAPHQL_VALIDATION_FAILED',
                ),
              ],
            };
          const costly = inputLimit(schema, document, msg.operationName, msg.variables);
          if (costly) return { errors: [toWire(emu, costly, 'GRAPHQL_VALIDATION_FAILED')] };
          const result = await execute({
            schema,
            document,
            variableValues: msg.variables ?? undefined,
            operationName: msg.operationName ?? undefined,
            contextValue: { emu, identity, cart: cartAs(c) } satisfies GraphqlContext,
          });
          return {
            ...(result.errors
              ? {
                  errors: result.errors.map((e) =>
                    toWire(emu, e, e.path ? 'INTERNAL_ERROR' : 'BAD_USER_INPUT'),
                  ),
                }
              : {}),
            ...('data' in result ? { data: result.data } : {}),
          };
        },
      });
    }
  },
};
