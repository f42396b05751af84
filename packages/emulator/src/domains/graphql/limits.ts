/**
 * What one GraphQL request may cost, checked before graphql-js's own validation and execution:
 * the document's size in tokens (enforced by the parser), how deep fields nest, how many fields it
 * selects once fragments are spread, how many root fields (each one a storage call) and cart fields
 * (each one a whole cart call) it has, and, once its variables are known, how many values its root
 * fields' arguments hold together.
 * @module
 */
import {
  type ASTVisitor,
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLSchema,
  getArgumentValues,
  getOperationAST,
  getVariableValues,
  Kind,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';

export const LIMITS = {
  /**
   * Lexical tokens in the document (graphql-js `parse({maxTokens})`). The introspection query is
   * some 160; a cap this low also keeps the recursive parser far from the stack's end.
   */
  maxTokens: 2000,
  /**
   * Field nesting: `{ products { products { media { mainMedia { image { url } } } } } }` is 6, the
   * schema's deepest field 8, and graphql-js's introspection query (`ofType` in `ofType`…) 15.
   */
  maxDepth: 15,
  /** Fields selected with every fragment spread where it is used (stops fragment "bombs"). */
  maxFields: 300,
  /**
   * Selections visited with every fragment spread where it is used: fields, inline fragments and
   * spreads, those of unknown or cyclic fragments too. Spreads that select no field (a doubling chain
   * of fragments ending in an unknown one or in a cycle) would otherwise cost 2^n steps unbounded.
   */
  maxSelections: 1000,
  /** Root fields of the operation, aliases included: each is at least one storage call. */
  maxRootFields: 10,
  /**
   * Root fields that call the current-cart API (by response name: one field selected twice under
   * one name runs once). Each is a whole cart call, which prices every line and may take most of
   * a second on a full cart: ten aliases of one cost ten such calls in one request. A page needs
   * one (`estimateCurrentCartTotals { cart { … } }` answers the cart with its totals). The
   * platform's own limit is UNCONFIRMED.
   */
  maxCartFields: 1,
  /**
   * Values in the arguments of the operation's root fields together, variables substituted (every
   * object, list and scalar counts, a variable once for each field that uses it). A platform
   * filter costs in proportion to its size, and one variable given to ten root fields would cost
   * ten times what its REST call costs. The biggest REST add-to-cart (300 lines, some 2100 values)
   * fits, and so does a filter of several hundred conditions. UNCONFIRMED on the platform.
   */
  maxInputValues: 4000,
};

/**
 * A validation rule refusing an operation over `limits`. It walks the selections with fragments
 * spread, stopping as soon as a limit is passed, so its cost is bounded by the limits, not by what
 * the document would expand to. Fragment cycles are skipped here (graphql-js reports them).
 * `cartFields` names the root fields that call the cart API.
 * @example validate(schema, document, [queryLimits(new Set(['currentCart']))])
 */
export function queryLimits(cartFields: ReadonlySet<string>) {
  const limits = LIMITS;
  return (context: ValidationContext): ASTVisitor => {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of context.getDocument().definitions)
      if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    return {
      OperationDefinition(op) {
        let fields = 0;
        let deepest = 0;
        let roots = 0;
        let selections = 0;
        const carts = new Set<string>();
        const over = () =>
          deepest > limits.maxDepth ||
          fields > limits.maxFields ||
          roots > limits.maxRootFields ||
          selections > limits.maxSelections;
        const walk = (set: SelectionSetNode, depth: number, spreading: Set<string>) => {
          for (const s of set.selections) {
            if (over()) return;
            selections++;
            if (s.kind === Kind.FIELD) {
              fields++;
              if (depth === 1 && !s.name.value.startsWith('__')) roots++;
              if (depth === 1 && cartFields.has(s.name.value)) carts.add((s.alias ?? s.name).value);
              deepest = Math.max(deepest, depth);
              if (s.selectionSet) walk(s.selectionSet, depth + 1, spreading);
            } else if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet, depth, spreading);
            else {
              const name = s.name.value;
              const f = fragments.get(name);
              if (!f || spreading.has(name)) continue;
              spreading.add(name);
              walk(f.selectionSet, depth, spreading);
              spreading.delete(name);
            }
          }
        };
        walk(op.selectionSet, 1, new Set());
        // The first limit passed, if any: [count, limit, code, the limit's name, what it says].
        const checks = [
          [
            deepest,
            limits.maxDepth,
            'QUERY_TOO_DEEP',
            'maxDepth',
            (n: number) => `nests fields more than ${n} levels deep`,
          ],
          [
            fields,
            limits.maxFields,
            'QUERY_TOO_COMPLEX',
            'maxFields',
            (n: number) => `selects more than ${n} fields, counting each fragment where it is spread`,
          ],
          [
            selections,
            limits.maxSelections,
            'QUERY_TOO_COMPLEX',
            'maxSelections',
            (n: number) => `visits more than ${n} selections, counting each fragment where it is spread`,
          ],
          [
            roots,
            limits.maxRootFields,
            'QUERY_TOO_COMPLEX',
            'maxRootFields',
            (n: number) => `has more than ${n} root fields`,
          ],
          [
            carts.size,
            limits.maxCartFields,
            'QUERY_TOO_COMPLEX',
            'maxCartFields',
            (n: number) =>
              `has more than ${n} cart field (each is a whole cart call; estimateCurrentCartTotals answers the cart too)`,
          ],
        ] as const;
        const broken = checks.find(([n, max]) => n > max);
        if (broken) {
          const [, max, code, name, text] = broken;
          context.reportError(
            new GraphQLError(`The operation ${text(max)}`, {
              nodes: op,
              extensions: { code, [name]: max },
            }),
          );
        }
      },
    };
  };
}

/**
 * Refuses an operation whose root fields' arguments hold more than `LIMITS.maxInputValues` values
 * together once its variables are substituted (see there), counting no further than the limit.
 * Anything it cannot work out (no such operation, variables or arguments that do not coerce) is
 * left to `execute`, which reports it.
 * @example const refused = inputLimit(schema, document, msg.operationName, msg.variables);
 */
export function inputLimit(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | null | undefined,
): GraphQLError | undefined {
  const max = LIMITS.maxInputValues;
  const op = getOperationAST(document, operationName);
  const root = op && schema.getRootType(op.operation);
  if (!op || !root) return undefined;
  const coerced = getVariableValues(schema, op.variableDefinitions ?? [], variables ?? {}, { maxErrors: 1 });
  if (coerced.errors) return undefined;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  let values = 0;
  /** Counts the values of `value` into `values`, stopping past `max` (each one waiting counts). */
  const count = (value: unknown) => {
    const stack = [value];
    while (stack.length && values + stack.length <= max + 1) {
      const v = stack.pop();
      values++;
      if (v === null || typeof v !== 'object') continue;
      for (const inner of Array.isArray(v) ? v : Object.values(v)) {
        if (values + stack.length > max) break;
        stack.push(inner);
      }
    }
    values += stack.length;
  };
  const spread = new Set<string>();
  const walk = (set: SelectionSetNode) => {
    for (const s of set.selections) {
      if (values > max) return;
      if (s.kind === Kind.INLINE_FRAGMENT) walk(s.selectionSet);
      else if (s.kind === Kind.FRAGMENT_SPREAD) {
        const f = fragments.get(s.name.value);
        if (!f || spread.has(s.name.value)) continue;
        spread.add(s.name.value);
        walk(f.selectionSet);
      } else {
        const field = root.getFields()[s.name.value];
        if (!field || !s.arguments?.length) continue;
        try {
          for (const value of Object.values(getArgumentValues(field, s, coerced.coerced))) count(value);
        } catch {}
      }
    }
  };
  walk(op.selectionSet);
  if (values <= max) return undefined;
  return new GraphQLError(
    `The operation's root fields take more than ${max} values in their arguments together (every object, list and scalar counts, variables included)`,
    { nodes: op, extensions: { code: 'QUERY_TOO_COMPLEX', maxInputValues: max } },
  );
}
