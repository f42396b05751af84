/**
 * The TypeScript examples of README.md and docs/*.md type-check against the real exports, as a
 * reader would paste them: every ```ts and ```tsx block becomes a module of its own, strict, with
 * only the names the prose leaves to the reader declared below (a `baseUrl`, a `productId`…). A
 * renamed export, a changed signature or a missing import in an example fails here.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));

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
  expect(blocks.filter((b) => b.where.startsWith('README.md')).length).toBeGreaterThanOrEqual(7);
  // Inside the repository's node_modules, so that `@shopkit/*` and the libraries resolve as they
  // do for an application; a directory of this run's own.
  mkdirSync(join(root, 'node_modules/.cache'), { recursive: true });
  const dir = mkdtempSync(join(root, 'node_modules/.cache/shopkit-docs-'));
  try {
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
    const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], {
      encoding: 'utf8',
    });
    // Diagnostics name the doc and the line of the block, not the generated file.
    const report = `${tsc.stdout}${tsc.stderr}`.replace(
      /^.*?(example\d+\.tsx?)\((\d+),(\d+)\)/gm,
      (_, name: string, line: string) => {
        const [file, start] = names.get(name)!.split(':');
        return `${file}:${Number(start) + Number(line) - 1}`;
      },
    );
    expect(report).toBe('');
    // A compiler that did not run (or crashed) says nothing on stdout either.
    expect(tsc.status).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // One whole `tsc` over React's and the packages' typings: beside the rest of the suite, on a
  // loaded machine, it outran the package's 20 s limit.
}, 120_000);
