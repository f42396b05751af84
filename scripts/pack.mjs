#!/usr/bin/env node
/**
 * `npm run pack`: builds `@shopkit/sdk` and `@shopkit/react` for publishing. In the repository the
 * packages export their TypeScript source (Vite, Vitest and tsx read it); outside it, plain Node and
 * TypeScript need JavaScript and declaration files. For each package this compiles `src/` (tests
 * left out) with the package's own tsconfig into `packages/<pkg>/dist/`: ES2022 ESM `.js` and
 * `.d.ts`, relative imports pointing at `.js` (TypeScript's `rewriteRelativeImportExtensions` does
 * it in JavaScript; a declaration transformer below does it in the `.d.ts`, which TypeScript leaves
 * as `.ts`), comments kept (`@__PURE__` and `@__NO_SIDE_EFFECTS__` drive tree-shaking). It then
 * checks the output (every relative import resolves, every package import is a declared
 * dependency or peer, no tree-shaking annotation lost) and writes `dist/package.json`: exports with
 * a `types` condition (and for the SDK a `node` condition: see `nodeBuild`), no scripts,
 * devDependencies or `files`. Publish with
 * `npm publish packages/sdk/dist`.
 *
 * Usage: node scripts/pack.mjs [--out-dir <dir>] [sdk|react …]
 *   --out-dir <dir>  write `<dir>/<pkg>/` instead of `packages/<pkg>/dist/` (`<dir>/<pkg>` must be
 *                    missing or empty); the tests use a temporary directory.
 * Writes nothing else: the output directory is the only place written to.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The packages built. `typeImports` renames packages in declaration files: TypeScript names the
 * types of TanStack Query's hooks after `@tanstack/query-core`, a dependency of
 * `@tanstack/react-query` and not a peer of `@shopkit/react`, so an installation need not have it
 * where `@shopkit/react` can see it; `@tanstack/react-query` re-exports all of it
 * (`export * from '@tanstack/query-core'`).
 */
const PACKAGES = {
  sdk: { dir: 'packages/sdk', options: {}, typeImports: {}, nodeBuild: true },
  react: {
    dir: 'packages/react',
    options: { jsx: ts.JsxEmit.ReactJSX },
    typeImports: { '@tanstack/query-core': '@tanstack/react-query' },
  },
};

const TEST_FILE = /\.test\.tsx?$/;
const ANNOTATION = /@__(PURE|NO_SIDE_EFFECTS)__/g;

function fail(message) {
  console.error(`pack: ${message}`);
  process.exit(1);
}

/** Whether `path` is `dir` or inside it. */
const inside = (dir, path) => {
  const rel = relative(dir, path);
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
};

/** `./x.ts` → `./x.js` (and `.tsx` → `.js`, `.mts` → `.mjs`, `.cts` → `.cjs`); other specifiers as they are. */
const jsSpecifier = (s) =>
  /^\.\.?\//.test(s) && /\.[cm]?tsx?$/.test(s) && !/\.d\.[cm]?ts$/.test(s)
    ? s.replace(/\.([cm]?)tsx?$/, (_, m) => `.${m}js`)
    : s;

/** A declaration transformer: relative `.ts` specifiers to `.js`, and the renames of `typeImports`. */
const declarationSpecifiers = (typeImports) => (ctx) => {
  const f = ctx.factory;
  const rename = (lit) => {
    const text = typeImports[lit.text] ?? jsSpecifier(lit.text);
    return text === lit.text ? lit : f.createStringLiteral(text, true);
  };
  const visit = (node) => {
    const n = ts.visitEachChild(node, visit, ctx);
    if (ts.isImportDeclaration(n) && ts.isStringLiteral(n.moduleSpecifier))
      return f.updateImportDeclaration(
        n,
        n.modifiers,
        n.importClause,
        rename(n.moduleSpecifier),
        n.attributes,
      );
    if (ts.isExportDeclaration(n) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier))
      return f.updateExportDeclaration(
        n,
        n.modifiers,
        n.isTypeOnly,
        n.exportClause,
        rename(n.moduleSpecifier),
        n.attributes,
      );
    if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal))
      return f.updateImportTypeNode(
        n,
        f.updateLiteralTypeNode(n.argument, rename(n.argument.literal)),
        n.attributes,
        n.qualifier,
        n.typeArguments,
        n.isTypeOf,
      );
    return n;
  };
  return (file) => (ts.isSourceFile(file) ? ts.visitNode(file, visit) : file);
};

/** Every module specifier of a `.js` or `.d.ts` file: imports, re-exports, `import()` and import types. */
function specifiers(path, text) {
  const found = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier)
      found.push(node.moduleSpecifier.text);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument))
      found.push(node.argument.literal.text);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      found.push(arg && ts.isStringLiteralLike(arg) ? arg.text : '<computed>');
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true));
  return found;
}

/** The files under `dir`, recursively. */
const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
  );

/** The package name of a bare specifier: `@scope/name/sub` → `@scope/name`, `react/jsx-runtime` → `react`. */
const packageOf = (s) =>
  s
    .split('/')
    .slice(0, s.startsWith('@') ? 2 : 1)
    .join('/');

/** Compiles `src/` of a package into `out`; returns the source files compiled. */
function compile(name, dir, out) {
  const spec = PACKAGES[name];
  const src = join(dir, 'src');
  const diagnostics = [];
  const config = ts.getParsedCommandLineOfConfigFile(
    join(dir, 'tsconfig.json'),
    {
      ...spec.options,
      noEmit: false,
      noEmitOnError: true,
      allowImportingTsExtensions: false,
      rewriteRelativeImportExtensions: true,
      declaration: true,
      emitDeclarationOnly: false,
      declarationMap: false,
      sourceMap: false,
      inlineSourceMap: false,
      removeComments: false,
      incremental: false,
      composite: false,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      rootDir: src,
      outDir: out,
    },
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => diagnostics.push(d) },
  );
  if (!config) fail(`cannot read ${relative(root, dir)}/tsconfig.json`);
  const files = config.fileNames.filter((f) => inside(src, f) && !TEST_FILE.test(f));
  const program = ts.createProgram({ rootNames: files, options: config.options });
  diagnostics.push(...config.errors, ...ts.getPreEmitDiagnostics(program));
  const result = diagnostics.length
    ? { diagnostics: [] }
    : program.emit(
        undefined,
        (path, text) => {
          const target = resolve(path);
          if (!inside(out, target)) fail(`refusing to write ${target}: outside ${out}`);
          mkdirSync(dirname(target), { recursive: true });
          writeFileSync(target, text);
        },
        undefined,
        false,
        { afterDeclarations: [declarationSpecifiers(spec.typeImports)] },
      );
  diagnostics.push(...result.diagnostics);
  if (diagnostics.length)
    fail(
      ts.formatDiagnostics(diagnostics, {
        getCanonicalFileName: (f) => f,
        getCurrentDirectory: () => root,
        getNewLine: () => '\n',
      }),
    );
  return { files };
}

/** Checks the compiled output: imports, declared packages, tree-shaking annotations. */
function check(pkg, sources, src, out) {
  const allowed = new Set([
    ...Object.keys(pkg.dependencies ?? {}),
    ...Object.keys(pkg.peerDependencies ?? {}),
  ]);
  const problems = [];
  const emitted = new Set(walk(out));
  for (const file of emitted) {
    const dts = file.endsWith('.d.ts');
    if (!dts && !file.endsWith('.js')) continue;
    for (const s of specifiers(file, readFileSync(file, 'utf8'))) {
      const where = relative(out, file);
      if (s.startsWith('.')) {
        const target = resolve(dirname(file), dts ? s.replace(/\.js$/, '.d.ts') : s);
        if (!s.endsWith('.js')) problems.push(`${where}: import of '${s}' (not .js)`);
        else if (!emitted.has(target)) problems.push(`${where}: '${s}' is not in the build`);
      } else if (!allowed.has(packageOf(s)))
        problems.push(`${where}: imports '${s}', not a dependency or peer of ${pkg.name}`);
    }
  }
  for (const source of sources) {
    const js = join(out, relative(src, source)).replace(/\.tsx?$/, '.js');
    const count = (path) => (readFileSync(path, 'utf8').match(ANNOTATION) ?? []).length;
    if (!emitted.has(js)) problems.push(`${relative(root, source)} was not compiled`);
    else if (count(js) !== count(source))
      problems.push(
        `${relative(out, js)}: ${count(js)} tree-shaking annotations, the source has ${count(source)}`,
      );
  }
  if (problems.length) fail(`${pkg.name}:\n  ${problems.join('\n  ')}`);
}

/** `'.'` → `index`, `'./cart'` → `cart`: the file name of an export's Node entry. */
const nodeName = (key) => (key === '.' ? 'index' : key.slice(2).replace(/\//g, '-'));

/**
 * The Node build (`node/`): Node's ES module loader pays for every file it loads (about 0.4 ms
 * each here), and the root entry of the compiled output is some 25 files. For Node, every export
 * is a small file that takes its names from one bundle of the whole package (`node/shared.js`), so
 * an import loads two files, and all entries share one copy of every module (one `ShopkitError`
 * for `instanceof`, one token lock). Bundlers keep the per-module files (the `default`
 * condition), which tree-shake best.
 */
async function nodeBuild(pkg, dir, out) {
  const targets = Object.entries(pkg.exports).map(([key, target]) => ({
    key,
    source: join(dir, target),
    compiled: join(out, target.replace(/^\.\/src\//, '').replace(/\.tsx?$/, '.js')),
  }));
  const entry = targets
    .map((t, i) => `export * as s${i} from ${JSON.stringify(t.source.split(sep).join('/'))};`)
    .join('\n');
  await build({
    stdin: { contents: entry, resolveDir: dir, loader: 'ts', sourcefile: 'shared.ts' },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    outfile: join(out, 'node/shared.js'),
    logLevel: 'warning',
  });
  const nodeExports = {};
  for (const [i, t] of targets.entries()) {
    // The names an entry exports, read from the compiled (per-module) output.
    const names = Object.keys(await import(pathToFileURL(t.compiled).href));
    const file = `node/${nodeName(t.key)}.js`;
    writeFileSync(
      join(out, file),
      `import { s${i} } from './shared.js';\nexport const { ${names.join(', ')} } = s${i};\n`,
    );
    nodeExports[t.key] = `./${file}`;
  }
  return nodeExports;
}

/** `./src/x.ts` → `{ types: './x.d.ts', default: './x.js' }`, checked against the build. */
function exportsFor(pkg, out, nodeExports = {}) {
  const entry = (target, key) => {
    if (typeof target !== 'string' || !/^\.\/src\/.+\.tsx?$/.test(target))
      fail(`${pkg.name}: export target ${JSON.stringify(target)} is not ./src/….ts(x)`);
    const js = target.replace(/^\.\/src\//, './').replace(/\.tsx?$/, '.js');
    const types = js.replace(/\.js$/, '.d.ts');
    for (const f of [js, types]) if (!existsSync(join(out, f))) fail(`${pkg.name}: ${f} was not built`);
    const node = nodeExports[key];
    return node ? { types, node, default: js } : { types, default: js };
  };
  const exp = pkg.exports;
  if (typeof exp === 'string') return { '.': entry(exp, '.') };
  return Object.fromEntries(Object.entries(exp).map(([key, target]) => [key, entry(target, key)]));
}

/** The package.json published from `out`: the package's own, with compiled exports and no dev fields. */
function publishedManifest(pkg, exports) {
  const manifest = {};
  for (const [key, value] of Object.entries(pkg)) {
    if (['scripts', 'devDependencies', 'files', 'main', 'module', 'types', 'typings'].includes(key)) continue;
    if (key !== 'exports') {
      manifest[key] = value;
      continue;
    }
    manifest.exports = exports;
    // For resolvers that ignore `exports` (TypeScript's `node10`, old bundlers): the root entry,
    // and for TypeScript the subpaths' declarations too (`typesVersions`).
    if (exports['.']) {
      manifest.main = exports['.'].default;
      manifest.types = exports['.'].types;
    }
    const subpaths = Object.entries(exports).filter(([key]) => key !== '.');
    if (subpaths.length)
      manifest.typesVersions = {
        '*': Object.fromEntries(subpaths.map(([key, target]) => [key.slice(2), [target.types]])),
      };
  }
  manifest.engines ??= { node: '>=20' };
  return manifest;
}

/** Builds one package into `out`. */
async function pack(name, out) {
  const dir = join(root, PACKAGES[name].dir);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const { files } = compile(name, dir, out);
  const nodeExports = PACKAGES[name].nodeBuild ? await nodeBuild(pkg, dir, out) : {};
  check(pkg, files, join(dir, 'src'), out);
  const manifest = publishedManifest(pkg, exportsFor(pkg, out, nodeExports));
  writeFileSync(join(out, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const extras = readdirSync(dir).filter((f) => /^(readme|licen[cs]e)(\.|$)/i.test(f));
  for (const f of extras) copyFileSync(join(dir, f), join(out, f));
  const shown = relative(process.cwd(), out);
  const where = !shown || shown.startsWith('..') ? out : shown;
  console.log(
    `${pkg.name}@${pkg.version} → ${where} (${walk(out).length} files); publish with: npm publish ${where}`,
  );
}

// Arguments.
const args = process.argv.slice(2);
let outDir;
const names = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--out-dir') {
    outDir = args[++i];
    if (!outDir) fail('--out-dir needs a directory');
  } else if (Object.hasOwn(PACKAGES, args[i])) names.push(args[i]);
  else fail(`unknown argument ${args[i]} (usage: node scripts/pack.mjs [--out-dir <dir>] [sdk|react …])`);
}

for (const name of names.length ? names : Object.keys(PACKAGES)) {
  let out;
  if (outDir) {
    out = resolve(outDir, name);
    let entries = [];
    try {
      entries = readdirSync(out);
    } catch {}
    if (entries.length) fail(`${out} is not empty`);
  } else {
    out = join(root, PACKAGES[name].dir, 'dist');
    rmSync(out, { recursive: true, force: true });
  }
  mkdirSync(out, { recursive: true });
  await pack(name, out);
}
