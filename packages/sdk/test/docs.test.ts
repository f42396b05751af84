/**
 * The TypeScript examples of README.md and docs/*.md type-check against the real exports, as a
 * reader would paste them: every ```ts and ```tsx block becomes a module of its own, strict, with
 * only the names the prose leaves to the reader declared below (a `baseUrl`, a `productId`…). A
 * renamed export, a changed signature or a missing import in an example fails here.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const root = new URL('../../../', import.meta.url).pathname;
// Inside the repository's node_modules, so that `@shopkit/*` and the libraries resolve as they do
// for an application.
const dir = join(root, 'node_modules/.cache/shopkit-docs-check');

/** What the examples take from their surroundings, typed as a reader's code would have them. */
const SURROUNDINGS = `
import type { LineItemInput } from '@shopkit/sdk/cart';
declare global {
  const baseUrl: string;
  const clientId: string;
  const apiKey: string;
  const email: string;
  const password: string;
  const codeFromTheEmail: string;
  const productId: string;
  const saleId: string;
  const lineItems: LineItemInput[];
  const request: Request;
  const publicKey: string;
  type Thing = { id: string; createdDate: Date; price: { amount: number } };
  function recalculate(cartId: string): Promise<void>;
  function recalculateShippingQuote(cartId: string): Promise<void>;
  function reindexProduct(productId: string): Promise<void>;
  function purgeProductPage(productId: string): Promise<void>;
  interface KVNamespace {
    get(key: string): Promise<string | null>;
    put(key: string, value: string, options?: { expirationTtl?: number }): Promise<void>;
  }
}
export {};
`;

/** Every TypeScript block of the docs, with the file and line it starts on. */
function examples() {
  const files = ['README.md', ...readdirSync(join(root, 'docs')).map((f) => `docs/${f}`)].filter((f) =>
    f.endsWith('.md'),
  );
  return files.flatMap((file) => {
    const text = readFileSync(join(root, file), 'utf8');
    return [...text.matchAll(/^```(tsx?)\n([\s\S]*?)^```/gm)].map((m) => ({
      where: `${file}:${text.slice(0, m.index).split('\n').length + 1}`,
      ext: m[1]!,
      code: m[2]!,
    }));
  });
}

it('type-checks every TypeScript example of README.md and docs/', () => {
  const blocks = examples();
  // The README alone has seven; a parser that found none would pass vacuously.
  expect(blocks.length).toBeGreaterThanOrEqual(10);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const names = new Map<string, string>();
  for (const [i, b] of blocks.entries()) {
    const name = `example${i}.${b.ext}`;
    names.set(name, b.where);
    // `export {}` makes a block without imports a module too: each has its own scope.
    writeFileSync(join(dir, name), `${b.code}\nexport {};\n`);
  }
  writeFileSync(join(dir, 'surroundings.d.ts'), SURROUNDINGS);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: join(root, 'tsconfig.base.json'),
      compilerOptions: { jsx: 'react-jsx' },
      include: ['*.ts', '*.tsx'],
    }),
  );
  let out = '';
  try {
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], {
      encoding: 'utf8',
    });
  } catch (e) {
    out = String((e as { stdout?: string }).stdout ?? e);
  }
  // Diagnostics name the doc and the line of the block, not the generated file.
  const report = out.replace(/^.*?(example\d+\.tsx?)\((\d+),(\d+)\)/gm, (_, name: string, line: string) => {
    const [file, start] = names.get(name)!.split(':');
    return `${file}:${Number(start) + Number(line) - 1}`;
  });
  expect(report).toBe('');
});
