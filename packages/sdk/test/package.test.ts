/**
 * The packages as a storefront team installs them: `scripts/pack.mjs` builds them into a temporary
 * directory, `npm pack` makes the tarballs, and `npm install --offline` installs them into fresh
 * projects outside the repository. There, plain `node` (no tsx, no loader) imports every entry and
 * calls the emulator, and `tsc` (strict; `nodenext`, `bundler` and `node10` resolution)
 * type-checks a consumer against the shipped declarations. The published emulator runs from its
 * tarball too: its command and `@shopkit/emulator/testing`, called by the installed SDK.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { startTestEmulator, type TestEmulator, testBackends } from '@shopkit/emulator/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserBundle, TYPICAL } from './entries.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const sdkDir = join(root, 'packages/sdk');
const SLOW = 240_000;

/** The environment of the child processes: CI, no npm settings inherited from `npm test`, no loader. */
const env = Object.fromEntries(
  Object.entries({ ...process.env, CI: 'true' }).filter(
    ([k]) => !/^npm_/i.test(k) && k !== 'NODE_OPTIONS' && !k.startsWith('VITEST'),
  ),
);

/** The child processes still running; the last `afterAll` kills any a failed test left behind. */
const live = new Set<ChildProcess>();

/** Starts a child process without stdin, in `live` until it has exited. */
function start(cmd: string, args: string[], cwd: string) {
  const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  child.on('exit', () => live.delete(child));
  return child;
}

/** Runs a command without stdin; resolves with its exit code and output (never rejects on failure). */
function run(cmd: string, args: string[], cwd: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    const child = start(cmd, args, cwd);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** Runs a command that must succeed; returns its standard output. */
async function ok(cmd: string, args: string[], cwd: string) {
  const r = await run(cmd, args, cwd);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.code}\n${r.stderr}${r.stdout}`);
  return r.stdout;
}

/** The files under `dir`, relative to it. */
const files = async (dir: string) =>
  (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();

let tmp: string;
let cache: string;
/** npm's options here: offline, a cache of our own in the temporary directory, no scripts. */
const npmFlags = () => ['--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--cache', cache];

/** A fresh ESM project in the temporary directory. */
async function project(name: string) {
  const dir = join(tmp, name);
  await mkdir(dir);
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  return dir;
}

/** `npm pack` of a staged package; the tarball's path and the files it holds. */
async function npmPack(dir: string) {
  const out = await ok(
    'npm',
    ['pack', dir, '--pack-destination', join(tmp, 'tarballs'), '--json', ...npmFlags()],
    tmp,
  );
  const [info] = JSON.parse(out) as [{ filename: string; files: { path: string }[] }];
  return { tarball: join(tmp, 'tarballs', info.filename), files: info.files.map((f) => f.path).sort() };
}

/** Runs an ES module in `dir` with plain node and parses the JSON it prints. */
async function node(dir: string, name: string, source: string, args: string[] = []) {
  await writeFile(join(dir, name), source);
  return JSON.parse(await ok(process.execPath, [name, ...args], dir));
}

const sourceManifest = JSON.parse(await readFile(join(sdkDir, 'package.json'), 'utf8'));
/** `@shopkit/emulator`'s package.json in the repository. */
const emulatorSource: { version: string; dependencies: Record<string, string> } = JSON.parse(
  await readFile(join(root, 'packages/emulator/package.json'), 'utf8'),
);
/** The subpaths `@shopkit/sdk` exports, as imported: `@shopkit/sdk`, `@shopkit/sdk/cart` … */
const entries = Object.keys(sourceManifest.exports).map((k) => `@shopkit/sdk${k.slice(1)}`);

let sdk: { tarball: string; files: string[] };
let react: { tarball: string; files: string[] };
let emulator: { tarball: string; files: string[] };
/** The project with `@shopkit/sdk` installed from its tarball, and nothing else. */
let app: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'shopkit-pack-'));
  cache = join(tmp, 'npm-cache');
  await mkdir(join(tmp, 'tarballs'));
  await ok(process.execPath, [join(root, 'scripts/pack.mjs'), '--out-dir', join(tmp, 'dist')], root);
  sdk = await npmPack(join(tmp, 'dist/sdk'));
  react = await npmPack(join(tmp, 'dist/react'));
  emulator = await npmPack(join(tmp, 'dist/emulator'));
  app = await project('app');
  await ok('npm', ['install', ...npmFlags(), sdk.tarball], app);
}, SLOW);

afterAll(async () => {
  for (const child of live) child.kill('SIGKILL');
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('@shopkit/sdk as published', () => {
  it('ships compiled JavaScript and declarations only, with no runtime dependency', {
    timeout: SLOW,
  }, async () => {
    const installed = join(app, 'node_modules/@shopkit/sdk');
    const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8'));
    expect(manifest).toMatchObject({ name: '@shopkit/sdk', version: sourceManifest.version, type: 'module' });
    for (const field of ['dependencies', 'devDependencies', 'scripts', 'files'])
      expect(manifest).not.toHaveProperty(field);
    // Every export: types first, then Node's build, then the per-module JavaScript, all in the tarball.
    expect(Object.keys(manifest.exports)).toEqual(Object.keys(sourceManifest.exports));
    for (const target of Object.values(manifest.exports) as Record<string, string>[]) {
      expect(Object.keys(target)).toEqual(['types', 'node', 'default']);
      for (const file of Object.values(target)) expect(sdk.files).toContain(file.slice(2));
    }
    expect(sdk.files.filter((f) => !/\.(js|d\.ts)$/.test(f))).toEqual(['package.json']);
    expect(sdk.files.filter((f) => f.includes('.test.'))).toEqual([]);
    expect(await files(installed)).toEqual(sdk.files);

    // Relative imports point at .js files (in the declarations too), and every one is shipped.
    for (const file of sdk.files.filter((f) => /\.(js|d\.ts)$/.test(f))) {
      const text = await readFile(join(installed, file), 'utf8');
      for (const [, spec] of text.matchAll(/(?:from\s*|import\s*\(\s*)['"](\.\.?\/[^'"]*)['"]/g)) {
        expect(spec, `${file} imports ${spec}`).toMatch(/\.js$/);
        const target = join(file, '..', spec!).replace(/\.js$/, file.endsWith('.d.ts') ? '.d.ts' : '.js');
        expect(sdk.files, `${file} imports ${spec}`).toContain(target);
      }
    }
    // The tree-shaking annotations survive compilation.
    const count = (text: string) => text.match(/\/\* @__PURE__ \*\//g)?.length ?? 0;
    const cartJs = count(await readFile(join(installed, 'modules/cart.js'), 'utf8'));
    expect(cartJs).toBeGreaterThan(0);
    expect(cartJs).toBe(count(await readFile(join(sdkDir, 'src/modules/cart.ts'), 'utf8')));
  });

  it('imports in plain node: every subpath export, with the values the source exports', {
    timeout: SLOW,
  }, async () => {
    const got = await node(
      app,
      'imports.mjs',
      `const out = {};
for (const spec of ${JSON.stringify(entries)}) {
  const m = await import(spec);
  out[spec] = Object.fromEntries(Object.keys(m).map((k) => [k, typeof m[k]]));
}
console.log(JSON.stringify({ out, resolved: import.meta.resolve('@shopkit/sdk') }));`,
    );
    // Node found the installed package, not the repository's source.
    expect(got.resolved).toBe(`file://${app}/node_modules/@shopkit/sdk/node/index.js`);
    const root = got.out['@shopkit/sdk'];
    for (const name of ['createClient', 'OAuthStrategy', 'ApiKeyStrategy', 'op'])
      expect(root[name], name).toBe('function');
    for (const name of ['ShopkitError', 'HttpError', 'ApplicationError', 'ValidationError', 'SystemError'])
      expect(root[name], name).toBe('function');
    expect(root.cart).toBe('object');
    expect(got.out['@shopkit/sdk/cart'].getCurrentCart).toBe('function');
    expect(got.out['@shopkit/sdk/products'].queryProducts).toBe('function');
    // Each entry exports what its source module exports, with the same kinds of values.
    for (const [key, target] of Object.entries(sourceManifest.exports as Record<string, string>)) {
      const source = await import(/* @vite-ignore */ join(sdkDir, target));
      const kinds = Object.fromEntries(Object.keys(source).map((k) => [k, typeof source[k]]));
      expect(got.out[`@shopkit/sdk${key.slice(1)}`], key).toEqual(kinds);
    }
  });

  it('bundles for browsers from the per-module files, as small as from the source', {
    timeout: SLOW,
  }, async () => {
    const bundle = async (resolveDir: string) => {
      const { gzip, inputs } = await browserBundle(TYPICAL, resolveDir);
      return { gzip, inputs: Object.keys(inputs).filter((f) => !f.endsWith('/entry.ts')) };
    };
    const [installed, source] = await Promise.all([bundle(app), bundle(root)]);
    // The browser condition reaches the per-module files (tree-shaken), never Node's bundle.
    expect(installed.inputs.every((f) => f.includes('node_modules/@shopkit/sdk/'))).toBe(true);
    expect(installed.inputs.some((f) => f.includes('/node/'))).toBe(false);
    expect(installed.inputs.length).toBeGreaterThan(5);
    // Compiled JavaScript tree-shakes like the source: within 3% of the same entry bundled from it.
    expect(installed.gzip / source.gzip).toBeGreaterThan(0.97);
    expect(installed.gzip / source.gzip).toBeLessThan(1.03);
  });

  describe.each(testBackends())('calls the emulator from plain node (%s)', (backend) => {
    let emu: TestEmulator;
    beforeAll(async () => {
      emu = await startTestEmulator(backend);
    }, SLOW);
    afterAll(() => emu?.stop());

    it('queries products and reads, fills and reads the current cart', { timeout: SLOW }, async () => {
      const got = await node(
        app,
        'call.mjs',
        `import { ApplicationError, createClient, OAuthStrategy, STORES_APP_ID } from '@shopkit/sdk';
import * as cart from '@shopkit/sdk/cart';
import * as products from '@shopkit/sdk/products';

const [baseUrl, clientId] = process.argv.slice(2);
const client = createClient({ baseUrl, auth: OAuthStrategy({ clientId }), modules: { cart, products } });
const before = await client.cart.getCurrentCart().then(
  () => ({ found: true }),
  (e) => ({ applicationError: e instanceof ApplicationError, status: e.status, code: e.code }),
);
const { products: found } = await client.products.queryProducts({ filter: { slug: 'linen-shirt' } });
const [shirt] = found;
await client.cart.addToCurrentCart({
  lineItems: [{
    catalogReference: { appId: STORES_APP_ID, catalogItemId: shirt.id, options: { options: { Size: 'M', Color: 'Sand' } } },
    quantity: 2,
  }],
});
const current = await client.cart.getCurrentCart();
console.log(JSON.stringify({
  before,
  products: found.map((p) => ({ slug: p.slug, name: p.name })),
  cart: {
    createdDateIsDate: current.createdDate instanceof Date,
    lines: current.lineItems.map((l) => ({ product: l.productName.original, quantity: l.quantity, id: l.catalogReference.catalogItemId === shirt.id })),
    subtotal: current.subtotal.amount,
  },
}));`,
        [emu.url, emu.demo.clientId],
      );
      expect(got).toEqual({
        before: { applicationError: true, status: 404, code: 'OWNED_CART_NOT_FOUND' },
        products: [{ slug: 'linen-shirt', name: 'Linen Shirt' }],
        cart: {
          createdDateIsDate: true,
          lines: [{ product: 'Linen Shirt', quantity: 2, id: true }],
          subtotal: '136.00',
        },
      });
    });
  });

  it('type-checks a TypeScript consumer (strict; nodenext, bundler and node10 resolution) against the shipped declarations', {
    timeout: SLOW,
  }, async () => {
    const tsc = join(root, 'node_modules/.bin/tsc');
    const tsconfig = (file: string, resolution = 'nodenext') =>
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: resolution === 'nodenext' ? 'nodenext' : 'es2022',
          moduleResolution: resolution,
          lib: ['ES2022', 'DOM'],
          types: [],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: [file],
      });
    const common = `import { ApplicationError, createClient, OAuthStrategy, type Tokens } from '@shopkit/sdk';
import * as cart from '@shopkit/sdk/cart';
import { type Cart, getCurrentCart } from '@shopkit/sdk/cart';

const client = createClient({ baseUrl: 'https://shop.example', auth: OAuthStrategy({ clientId: 'id' }), modules: { cart } });
`;
    await writeFile(
      join(app, 'good.ts'),
      `${common}
export async function lines(tokens: Tokens): Promise<number> {
  const c: Cart = await client.cart.getCurrentCart();
  const again: Cart = await getCurrentCart(client);
  const error: ApplicationError | undefined = undefined;
  return c.lineItems.length + again.lineItems.length + (error ? 1 : 0) + (tokens.accessToken ? 1 : 0);
}
`,
    );
    // Older set-ups resolve with `node10`, which ignores `exports`: `typesVersions` serves them.
    for (const resolution of ['nodenext', 'bundler', 'node10']) {
      await writeFile(join(app, `tsconfig.${resolution}.json`), tsconfig('good.ts', resolution));
      const good = await run(tsc, ['-p', `tsconfig.${resolution}.json`], app);
      expect(good.stdout + good.stderr, resolution).toBe('');
      expect(good.code, resolution).toBe(0);
    }

    // Two deliberate mistakes: each must be a type error at its line, so the types are not `any`.
    await writeFile(
      join(app, 'bad.ts'),
      `${common}
export const wrongClientId = OAuthStrategy({ clientId: 42 });
export const wrongCart: Promise<number> = client.cart.getCurrentCart();
`,
    );
    await writeFile(join(app, 'tsconfig.bad.json'), tsconfig('bad.ts'));
    const bad = await run(tsc, ['-p', 'tsconfig.bad.json'], app);
    expect(bad.code).not.toBe(0);
    const errors = [...bad.stdout.matchAll(/^(\S+)\((\d+),\d+\): error (TS\d+)/gm)].map(([, f, line]) => [
      f,
      Number(line),
    ]);
    expect(errors).toEqual([
      ['bad.ts', 7],
      ['bad.ts', 8],
    ]);
  });
});

describe('@shopkit/react as published', () => {
  it('imports in plain node with its peers, and renders with the installed SDK', {
    timeout: SLOW,
  }, async () => {
    const dir = await project('react-app');
    // The peers come from the repository (no network): the SDK from its tarball, React and
    // TanStack Query linked in after the install, which is told not to fetch peers.
    await ok('npm', ['install', ...npmFlags(), '--legacy-peer-deps', sdk.tarball, react.tarball], dir);
    for (const peer of ['react', 'react-dom', '@tanstack'])
      await symlink(join(root, 'node_modules', peer), join(dir, 'node_modules', peer), 'dir');

    const manifest = JSON.parse(
      await readFile(join(dir, 'node_modules/@shopkit/react/package.json'), 'utf8'),
    );
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual([
      '@shopkit/sdk',
      '@tanstack/react-query',
      'react',
    ]);
    // `*` in the workspace; a registry needs a range of real versions.
    expect(manifest.peerDependencies['@shopkit/sdk']).toBe(`^${sourceManifest.version}`);
    for (const field of ['dependencies', 'devDependencies', 'scripts'])
      expect(manifest).not.toHaveProperty(field);
    expect(manifest.exports).toEqual({ '.': { types: './index.d.ts', default: './index.js' } });
    expect(react.files.filter((f) => !/\.(js|d\.ts)$/.test(f))).toEqual(['package.json']);
    // The declarations name only packages an installation is sure to have.
    for (const file of react.files.filter((f) => f.endsWith('.d.ts')))
      expect(await readFile(join(dir, 'node_modules/@shopkit/react', file), 'utf8')).not.toMatch(
        /['"](@tanstack\/query-core|\.\.?\/[^'"]*\.tsx?)['"]/,
      );

    const got = await node(
      dir,
      'react.mjs',
      `import * as shopkitReact from '@shopkit/react';
import { createClient, OAuthStrategy } from '@shopkit/sdk';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createElement } from 'react';
import { renderToString } from 'react-dom/server';

const { ShopkitProvider, useShopkit } = shopkitReact;
const client = createClient({ baseUrl: 'https://shop.example', auth: OAuthStrategy({ clientId: 'id' }) });
function Probe() {
  return createElement('p', null, useShopkit() === client ? 'same client' : 'another client');
}
const html = renderToString(
  createElement(QueryClientProvider, { client: new QueryClient() },
    createElement(ShopkitProvider, { client }, createElement(Probe))),
);
console.log(JSON.stringify({
  kinds: Object.fromEntries(Object.keys(shopkitReact).map((k) => [k, typeof shopkitReact[k]])),
  html,
  resolved: [import.meta.resolve('@shopkit/react'), import.meta.resolve('@shopkit/sdk')],
}));`,
    );
    expect(got.resolved).toEqual([
      `file://${dir}/node_modules/@shopkit/react/index.js`,
      `file://${dir}/node_modules/@shopkit/sdk/node/index.js`,
    ]);
    expect(got.html).toBe('<p>same client</p>');
    // A path tsc does not follow: the SDK's tsconfig has no JSX.
    const source = await import(/* @vite-ignore */ join(root, 'packages/react/src/index.ts'));
    expect(got.kinds).toEqual(Object.fromEntries(Object.keys(source).map((k) => [k, typeof source[k]])));
    for (const name of ['ShopkitProvider', 'useShopkit', 'useCart', 'useAddToCart', 'productsQuery'])
      expect(got.kinds[name], name).toBe('function');
  });
});

describe('@shopkit/emulator as published', () => {
  /** The project: the SDK installed from its tarball, the emulator's tarball unpacked beside it. */
  let dir: string;
  let installed: string;
  let manifest: {
    bin: Record<string, string>;
    dependencies: Record<string, string>;
    exports: Record<string, Record<string, string>>;
  } & Record<string, unknown>;

  beforeAll(async () => {
    dir = await project('emulator-app');
    // The SDK first: npm removes from node_modules what it did not install itself.
    await ok('npm', ['install', ...npmFlags(), sdk.tarball], dir);
    // The emulator's dependencies are not in the offline cache: its tarball is unpacked where npm
    // would put it, and its dependencies (and theirs) are linked from the repository's node_modules.
    installed = join(dir, 'node_modules/@shopkit/emulator');
    await mkdir(installed, { recursive: true });
    await ok('tar', ['-xzf', emulator.tarball, '-C', installed, '--strip-components=1'], dir);
    manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8'));
    const linked = new Set<string>();
    const link = async (name: string, required: boolean): Promise<void> => {
      if (linked.has(name) || name.startsWith('@shopkit/')) return;
      const from = join(root, 'node_modules', name);
      let deps: Record<string, Record<string, string> | undefined>;
      try {
        deps = JSON.parse(await readFile(join(from, 'package.json'), 'utf8'));
      } catch (e) {
        // An optional dependency or peer not installed (pg-native) is not needed.
        if (required) throw e;
        return;
      }
      linked.add(name);
      await mkdir(dirname(join(dir, 'node_modules', name)), { recursive: true });
      await symlink(from, join(dir, 'node_modules', name), 'dir');
      for (const d of Object.keys(deps.dependencies ?? {})) await link(d, true);
      for (const d of Object.keys({ ...deps.optionalDependencies, ...deps.peerDependencies }))
        await link(d, false);
    };
    for (const d of Object.keys(manifest.dependencies)) await link(d, true);
  }, SLOW);

  it('ships compiled JavaScript, declarations and its command, pins the SDK and needs no tsx', {
    timeout: SLOW,
  }, async () => {
    expect(manifest).toMatchObject({
      name: '@shopkit/emulator',
      version: emulatorSource.version,
      type: 'module',
      engines: { node: '>=20.19' },
    });
    for (const field of ['devDependencies', 'scripts', 'files']) expect(manifest).not.toHaveProperty(field);
    // The repository's dependencies and ranges, less tsx (it ran the TypeScript source), with the
    // workspace's `*` for the SDK become a range a registry resolves.
    const { tsx, ...runtime } = emulatorSource.dependencies;
    expect(tsx).toBeDefined();
    expect(manifest.dependencies).toEqual({ ...runtime, '@shopkit/sdk': `^${sourceManifest.version}` });

    expect(manifest.exports).toEqual({
      '.': { types: './index.d.ts', default: './index.js' },
      './testing': { types: './testing.d.ts', default: './testing.js' },
    });
    expect(Object.keys(manifest.bin)).toEqual(['shopkit-emulator']);
    const bin = manifest.bin['shopkit-emulator']!.replace(/^\.\//, '');
    expect(bin).toMatch(/\.js$/);
    expect(emulator.files).toContain(bin);
    expect((await readFile(join(installed, bin), 'utf8')).split('\n')[0]).toBe('#!/usr/bin/env node');

    // JavaScript and declarations only: no TypeScript source, no tests.
    expect(emulator.files.filter((f) => /\.[cm]?tsx?$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
    expect(emulator.files.filter((f) => !/\.(js|d\.ts)$/.test(f))).toEqual(['package.json']);
    expect(emulator.files.filter((f) => f.includes('.test.'))).toEqual([]);
    expect(emulator.files).toContain('testing.js');
    expect(await files(installed)).toEqual(emulator.files);
    for (const file of emulator.files.filter((f) => /\.(js|d\.ts)$/.test(f)))
      expect(await readFile(join(installed, file), 'utf8'), file).not.toMatch(/['"]tsx(\/[^'"]*)?['"]/);
  });

  it('runs shopkit-emulator with plain node: the ready line, calls from the installed SDK, a clean exit on SIGTERM', {
    timeout: SLOW,
  }, async () => {
    const bin = join('node_modules/@shopkit/emulator', manifest.bin['shopkit-emulator']!);
    const child = start(process.execPath, [bin, '--port', '0', '--db', 'memory', '--json'], dir);
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const info = await new Promise<{ url: string; clientId: string; apiKey: string; siteId: string }>(
        (resolve, reject) => {
          createInterface({ input: child.stdout! }).once('line', (line) => {
            try {
              resolve(JSON.parse(line));
            } catch {
              reject(new Error('the first line of shopkit-emulator --json is not JSON'));
            }
          });
          child.once('exit', (code) =>
            reject(new Error(`shopkit-emulator exited early with ${code}\n${stderr}`)),
          );
        },
      );
      expect(Object.keys(info).sort()).toEqual(['apiKey', 'clientId', 'siteId', 'url']);
      expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

      const got = await node(
        dir,
        'cli-call.mjs',
        `import { createClient, OAuthStrategy } from '@shopkit/sdk';
import * as collections from '@shopkit/sdk/collections';
import * as products from '@shopkit/sdk/products';

const [baseUrl, clientId] = process.argv.slice(2);
const client = createClient({ baseUrl, auth: OAuthStrategy({ clientId }), modules: { collections, products } });
const { collection } = await client.collections.getCollectionBySlug('summer-linen');
const page = await client.products.queryProducts().hasSome('collectionIds', [collection.id]).ascending('name').find();
const tokens = await client.auth.getTokens();
console.log(JSON.stringify({
  collection: { id: collection.id, slug: collection.slug, name: collection.name },
  products: page.items.map((p) => p.slug),
  role: tokens.refreshToken.role,
}));`,
        [info.url, info.clientId],
      );
      expect(got).toEqual({
        collection: { id: 'col-summer-linen', slug: 'summer-linen', name: 'Summer Linen' },
        products: ['linen-dress', 'linen-shirt', 'linen-tea-towels', 'linen-trousers', 'straw-sun-hat'],
        role: 'visitor',
      });

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it.each(testBackends())(
    'starts from @shopkit/emulator/testing in plain node (%s) for the installed SDK',
    {
      timeout: SLOW,
    },
    async (backend) => {
      const got = await node(
        dir,
        `testing-${backend}.mjs`,
        `import { startTestEmulator } from '@shopkit/emulator/testing';
import { ApplicationError, createClient, OAuthStrategy } from '@shopkit/sdk';
import * as cart from '@shopkit/sdk/cart';

const emu = await startTestEmulator(process.argv[2]);
try {
  const client = createClient({ baseUrl: emu.url, auth: OAuthStrategy({ clientId: emu.demo.clientId }), modules: { cart } });
  const current = await client.cart.getCurrentCart().then(
    () => ({ found: true }),
    (e) => ({ applicationError: e instanceof ApplicationError, status: e.status, code: e.code }),
  );
  const tokens = await client.auth.getTokens();
  console.log(JSON.stringify({
    backend: emu.backend,
    current,
    role: tokens.refreshToken.role,
    resolved: [import.meta.resolve('@shopkit/emulator/testing'), import.meta.resolve('@shopkit/sdk')],
  }));
} finally {
  await emu.stop();
}`,
        [backend],
      );
      expect(got).toEqual({
        backend,
        current: { applicationError: true, status: 404, code: 'OWNED_CART_NOT_FOUND' },
        role: 'visitor',
        resolved: [
          `file://${dir}/node_modules/@shopkit/emulator/testing.js`,
          `file://${dir}/node_modules/@shopkit/sdk/node/index.js`,
        ],
      });
    },
  );
});
