#!/usr/bin/env node
// `npm run bench`: runs every bench/*.bench.{mjs,ts} in name order, one at a time, prints their
// output, and writes it to docs/performance.md so that every figure there comes from this command.
// Benchmarks print Markdown (headings, tables, lines); nothing here asserts a time.
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

const only = process.argv.slice(2);
const files = readdirSync('bench')
  .filter((f) => /\.bench\.(mjs|ts)$/.test(f))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
const sections = [];
let failed = 0;
for (const file of files) {
  console.error(`[bench] ${file}`);
  const args = file.endsWith('.ts') ? ['--import', 'tsx', `bench/${file}`] : [`bench/${file}`];
  const r = spawnSync(process.execPath, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 << 20,
  });
  process.stdout.write(r.stdout);
  if (r.status !== 0) {
    failed++;
    sections.push(`## ${file}\n\nFAILED (exit ${r.status}); see the console output.\n`);
  } else sections.push(r.stdout.trim() + '\n');
}
if (only.length === 0) {
  const header = [
    '# Performance',
    '',
    `Written by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model?.trim() ?? 'CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB.`,
    'Machines are shared and noisy: compare the ratios within one run, not absolute times across runs.',
    '',
  ].join('\n');
  writeFileSync('docs/performance.md', header + '\n' + sections.join('\n'));
  console.error('[bench] wrote docs/performance.md');
}
process.exit(failed ? 1 : 0);
