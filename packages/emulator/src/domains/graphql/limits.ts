/**
 * What one GraphQL request may cost, checked before graphql-js's own validation and execution:
 * the document's size in tokens (enforced by the parser), how deep fields nest, how many fields it
 * selects once fragments are spread, and how many root fields (each one a storage call) it has.
 * @module
 */
import {
  type ASTVisitor,
  type FragmentDefinitionNode,
  GraphQLError,
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
};

/**
 * A validation rule refusing an operation over `limits`. It walks the selections with fragments
 * spread, stopping as soon as a limit is passed, so its cost is bounded by the limits, not by what
 * the document would expand to. Fragment cycles are skipped here (graphql-js reports them).
 * @example validate(schema, document, [queryLimits()])
 */
export function queryLimits() {
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
