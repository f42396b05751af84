#!/usr/bin/env node
import { fileURLToPath } from 'node:url';
// The storefront's production bundle: JavaScript per chunk (raw and gzip), and the share of the
// shop's entry chunk that is @shopkit/sdk and @shopkit/react code. Prints Markdown.
import { gzipSync } from 'node:zlib';
import { build } from 'vite';

const root = fileURLToPath(new URL('../apps/storefront/', import.meta.url));
const out = await build({
  root,
  configFile: `${root}vite.config.ts`,
  logLevel: 'silent',
  build: { write: false },
});
const chunks = (Array.isArray(out) ? out : [out]).flatMap((o) => o.output).filter((c) => c.type === 'chunk');
const gz = (s) => gzipSync(s, { level: 9 }).length;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

const rows = chunks.map((c) => ({
  name: c.isEntry ? `${c.fileName} (entry)` : c.fileName,
  raw: c.code.length,
  gzip: gz(c.code),
}));
const part = (chunk, test) =>
  Object.entries(chunk.modules)
    .filter(([id]) => test(id))
    .map(([, m]) => m.code ?? '')
    .join('\n');
const entry = chunks.find((c) => c.isEntry);
const sdk = part(entry, (id) => id.includes('/packages/sdk/src/'));
const react = part(entry, (id) => id.includes('/packages/react/src/'));

console.log('## Storefront bundle (`vite build`)\n');
console.log('| chunk | JS | gzip |\n| --- | ---: | ---: |');
for (const r of rows) console.log(`| ${r.name} | ${kb(r.raw)} | ${kb(r.gzip)} |`);
const total = rows.reduce((a, r) => a + r.gzip, 0);
console.log(`| **all chunks** | ${kb(rows.reduce((a, r) => a + r.raw, 0))} | **${kb(total)}** |\n`);
console.log(
  `Shop entry chunk: ${kb(gz(entry.code))} gzip. Of it, @shopkit/sdk is ${kb(sdk.length)} before minification and ${kb(gz(sdk))} gzip on its own ` +
    `(${((100 * gz(sdk)) / gz(entry.code)).toFixed(1)} % of the entry), and @shopkit/react ${kb(gz(react))} gzip. ` +
    'The merchant console is a separate chunk that shoppers never download. Parts are measured before minification and compressed on their own, so they overstate their share.\n',
);
