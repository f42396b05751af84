#!/usr/bin/env node
/**
 * `npm run pack`: builds `@shopkit/sdk`, `@shopkit/react` and `@shopkit/emulator` for publishing.
 * In the repository the packages export their TypeScript source (Vite, Vitest and tsx read it);
 * outside it, plain Node and TypeScript need JavaScript and declaration files. For each package
 * this compiles `src/` (tests left out) with the package's own tsconfig into
 * `packages/<pkg>/dist/`: ES2022 ESM `.js` and `.d.ts`, relative imports pointing at `.js`
 * (TypeScript's `rewriteRelativeImportExtensions` does it in JavaScript; a declaration transformer
 * below does it in the `.d.ts`, which TypeScript leaves as `.ts`), comments kept (`@__PURE__` and
 * `@__NO_SIDE_EFFECTS__` drive tree-shaking). Commands (`bin`) become compiled launchers in
 * `dist/bin/` (see `bin` below). It then checks the output (every relative import resolves, every
 * package import is a dependency or peer of the published package, no tree-shaking annotation
 * lost) and writes `dist/package.json`: exports with a `types` condition (and for the SDK a `node`
 * condition: see `nodeBuild`), no scripts, devDependencies or `files`, no dependency the build
 * does not need (`dropDependencies`), and `@shopkit/*` dependencies and peers written `*` (any
 * version of the workspace's package) pinned to `^<its version>`, which a registry can resolve.
 * Publish with `npm publish packages/sdk/dist`.
 *
 * Usage: node scripts/pack.mjs [--out-dir <dir>] [sdk|react|emulator …]
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
import { isBuiltin } from 'node:module';
import { dirname, isAbsolute, join, posix, relative, resolve, sep } from 'node:path';
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
 *
 * `bin` maps each command of the package's `bin` to the module (under `src/`, no extension) it
 * runs: the repository's launchers run TypeScript through tsx, so the build writes its own,
 * `dist/bin/<command>.js`, a shebang and an import of the compiled module (which does its work at
 * top level). `dropDependencies` are dependencies the build does not need (tsx ran the source);
 * they are left out of the published manifest, and the check fails if compiled code imports one.
 * `engines` is the published `engines` when the package.json has none (default: Node ≥ 20); the
 * emulator needs more than 20.0 (`AbortSignal.any` is 20.3) and is tested on the repository's
 * floor, the root package.json's 20.19.
 */
const PACKAGES = {
  sdk: { dir: 'packages/sdk', options: {}, typeImports: {}, nodeBuild: true },
  react: {
    dir: 'packages/react',
    options: { jsx: ts.JsxEmit.ReactJSX },
    typeImports: { '@tanstack/query-core': '@tanstack/react-query' },
  },
  emulator: {
    dir: 'packages/emulator',
    options: {},
    typeImports: {},
    bin: { 'shopkit-emulator': 'cli' },
    dropDependencies: ['tsx'],
    engines: { node: '>=20.19' },
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

/**
 * Checks the compiled output against the published manifest: imports, declared packages,
 * tree-shaking annotations. `dropped` are the dependencies the manifest leaves out.
 */
function check(manifest, dropped, sources, src, out) {
  const allowed = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
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
      } else if (dropped.includes(packageOf(s)))
        problems.push(`${where}: imports '${s}', which the published ${manifest.name} does not depend on`);
      else if (!isBuiltin(s) && !allowed.has(packageOf(s)))
        problems.push(`${where}: imports '${s}', not a dependency or peer of ${manifest.name}`);
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
  if (problems.length) fail(`${manifest.name}:\n  ${problems.join('\n  ')}`);
}

/** `'.'` → `index`, `'./cart'` → `cart`: the file name of an export's Node entry. */
const nodeName = (key) => (key === '.' ? 'index' : key.slice(2).replace(/\//g, '-'));

/**
 * The Node build (`node/`): Node's ES module loader pays for every file it loads (about 0.4 ms
 * each here, more on a busy machine), and the root entry of the compiled output is some 30 files.
 * For Node, the root export is one bundle of the whole package (`node/index.js`), and every other
 * export a small file that takes its names from the root's namespace of that module (`cart` for
 * `./cart`: the root exports each module as a namespace), so an import of the root loads one
 * file, of another export two, and all entries share one copy of every module (one
 * `ShopkitError` for `instanceof`, one token lock). Bundlers keep the per-module files (the
 * `default` condition), which tree-shake best.
 */
async function nodeBuild(pkg, dir, out) {
  const targets = Object.entries(pkg.exports).map(([key, target]) => ({
    key,
    source: join(dir, target),
    compiled: join(out, target.replace(/^\.\/src\//, '').replace(/\.tsx?$/, '.js')),
  }));
  const root = targets.find((t) => t.key === '.');
  if (!root) fail(`${pkg.name}: the Node build needs a root export`);
  await build({
    entryPoints: [root.source],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    outfile: join(out, 'node/index.js'),
    logLevel: 'warning',
  });
  // The names each export has, read from the compiled (per-module) output.
  const namesOf = async (t) => Object.keys(await import(pathToFileURL(t.compiled).href)).sort();
  const rootModule = await import(pathToFileURL(root.compiled).href);
  const nodeExports = { '.': './node/index.js' };
  for (const t of targets) {
    if (t === root) continue;
    const names = await namesOf(t);
    // The root's namespace of the same module: the one named as the export (`./cart` → `cart`)
    // holding exactly its names.
    const space = nodeName(t.key);
    const held = rootModule[space] && Object.keys(rootModule[space]).sort();
    if (!held || held.join() !== names.join())
      fail(`${pkg.name}: the root exports no namespace "${space}" with the names of ${t.key}`);
    const file = `node/${space}.js`;
    writeFileSync(
      join(out, file),
      `import { ${space} } from './index.js';\nexport const { ${names.join(', ')} } = ${space};\n`,
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

/**
 * Writes a launcher, `bin/<command>.js`, for each command of the package (see `bin` in
 * `PACKAGES`); returns the published `bin`.
 */
function launchers(name, pkg, out) {
  const modules = PACKAGES[name].bin ?? {};
  // A string `bin` is one command named after the package (without its scope).
  const commands = typeof pkg.bin === 'string' ? [pkg.name.split('/').pop()] : Object.keys(pkg.bin ?? {});
  for (const command of Object.keys(modules))
    if (!commands.includes(command))
      fail(`${pkg.name}: PACKAGES.${name}.bin names ${command}, not a command of its bin`);
  const bin = {};
  for (const command of commands) {
    const module = modules[command];
    if (!module) fail(`${pkg.name}: command ${command} runs no compiled module (set PACKAGES.${name}.bin)`);
    if (!existsSync(join(out, `${module}.js`)))
      fail(`${pkg.name}: ${module}.js (command ${command}) was not built`);
    const file = `bin/${command}.js`;
    if (existsSync(join(out, file))) fail(`${pkg.name}: ${file} is a compiled module already`);
    mkdirSync(join(out, 'bin'), { recursive: true });
    // npm links the command to this file and makes it executable; the shebang picks Node.
    writeFileSync(join(out, file), `#!/usr/bin/env node\nimport '${posix.relative('bin', module)}.js';\n`, {
      mode: 0o755,
    });
    bin[command] = file;
  }
  return bin;
}

/** The workspace's packages by name (from the root package.json's `workspaces`). */
function workspacePackages() {
  const { workspaces = [] } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const dirs = workspaces.flatMap((w) =>
    w.endsWith('/*')
      ? readdirSync(join(root, w.slice(0, -2)), { withFileTypes: true })
          .filter((e) => e.isDirectory())
          .map((e) => join(w.slice(0, -2), e.name))
      : [w],
  );
  return Object.fromEntries(
    dirs
      .filter((d) => existsSync(join(root, d, 'package.json')))
      .map((d) => JSON.parse(readFileSync(join(root, d, 'package.json'), 'utf8')))
      .map((m) => [m.name, m]),
  );
}

/**
 * Dependencies (or peers) as published: without `dropped`, and `@shopkit/*` written `*` (in the
 * workspace: whatever version it has) pinned to `^<the workspace package's version>`.
 */
function publishedDependencies(pkg, deps, dropped) {
  const workspace = workspacePackages();
  const out = {};
  for (const [dep, range] of Object.entries(deps)) {
    if (dropped.includes(dep)) continue;
    if (!dep.startsWith('@shopkit/') || range !== '*') {
      out[dep] = range;
      continue;
    }
    const target = workspace[dep];
    if (!target) fail(`${pkg.name}: ${dep}@* is not a package of the workspace`);
    if (target.private) fail(`${pkg.name}: ${dep}@* is private, never published`);
    out[dep] = `^${target.version}`;
  }
  return out;
}

/**
 * The package.json published from `out`: the package's own, with compiled exports and commands,
 * pinned `@shopkit/*` ranges and no dev fields or `dropped` dependencies.
 */
function publishedManifest(pkg, exports, bin, dropped, engines = { node: '>=20' }) {
  for (const dep of dropped)
    if (!Object.hasOwn(pkg.dependencies ?? {}, dep))
      fail(`${pkg.name}: dropDependencies names ${dep}, not one of its dependencies`);
  const manifest = {};
  for (const [key, value] of Object.entries(pkg)) {
    if (['scripts', 'devDependencies', 'files', 'main', 'module', 'types', 'typings'].includes(key)) continue;
    if (key === 'bin') {
      manifest.bin = bin;
      continue;
    }
    if (['dependencies', 'peerDependencies', 'optionalDependencies'].includes(key)) {
      const deps = publishedDependencies(pkg, value, key === 'dependencies' ? dropped : []);
      if (Object.keys(deps).length) manifest[key] = deps;
      continue;
    }
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
  manifest.engines ??= engines;
  return manifest;
}

/** Builds one package into `out`. */
async function pack(name, out) {
  const dir = join(root, PACKAGES[name].dir);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const dropped = PACKAGES[name].dropDependencies ?? [];
  const { files } = compile(name, dir, out);
  const nodeExports = PACKAGES[name].nodeBuild ? await nodeBuild(pkg, dir, out) : {};
  const bin = launchers(name, pkg, out);
  const manifest = publishedManifest(
    pkg,
    exportsFor(pkg, out, nodeExports),
    bin,
    dropped,
    PACKAGES[name].engines,
  );
  check(manifest, dropped, files, join(dir, 'src'), out);
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
  else
    fail(
      `unknown argument ${args[i]} (usage: node scripts/pack.mjs [--out-dir <dir>] [${Object.keys(PACKAGES).join('|')} …])`,
    );
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
