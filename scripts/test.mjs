#!/usr/bin/env node
// `npm test`: the whole suite (unit, contract over HTTP, React, real-browser e2e) with Vitest.
// `npm run test:long`: the long suites: the two fuzzers with ten times the cases, and every
// `*.long.test.ts` (soak, PostgreSQL restart), with SHOPKIT_LONG=1, one file at a time
// (vitest.config.ts): the restart must not overlap anything else using PostgreSQL.
import { spawnSync } from 'node:child_process';

const long = process.argv.includes('--long');
const run = (cmd, args, env = {}) =>
  spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } }).status ?? 1;

if (!long) {
  // Lint/format and types first: cheap, and a failure there is a failure of the suite.
  if (run('npx', ['biome', 'check', '.']) !== 0) process.exit(1);
  for (const project of ['packages/sdk', 'packages/emulator', 'packages/react', 'apps/storefront', 'bench'])
    if (run('npx', ['tsc', '-p', `${project}/tsconfig.json`]) !== 0) process.exit(1);
}
if (run(process.execPath, ['scripts/ensure-chromium.mjs']) !== 0) process.exit(1);
if (!process.env.SHOPKIT_TEST_DATABASE_URL)
  console.error(
    '[shopkit] SHOPKIT_TEST_DATABASE_URL is not set: contract suites run on embedded storage only (.ci/run sets it).',
  );
const status = long
  ? run('npx', ['vitest', 'run', 'fuzz', '.long.'], { SHOPKIT_LONG: '1' })
  : run('npx', ['vitest', 'run']);
process.exit(status);
