/**
 * Imports a source module as a production build would ship it: bundled and minified by esbuild,
 * so that class names are mangled (for tests that a class keeps its public `name`).
 */
export async function importMinified(entry: URL): Promise<Record<string, any>> {
  const { build } = await import('esbuild');
  const out = await build({
    entryPoints: [entry.pathname],
    bundle: true,
    minify: true,
    format: 'esm',
    write: false,
  });
  return import(`data:text/javascript,${encodeURIComponent(out.outputFiles[0]!.text)}`);
}
