#!/usr/bin/env node
// Makes sure a Chromium for the browser tests exists: Debian's package, installed when missing.
// Playwright cannot download its own browser on these machines, so we use the system one.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const path = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (existsSync(path)) process.exit(0);
const isRoot = process.getuid?.() === 0;
const hasApt = existsSync('/usr/bin/apt-get');
if (!isRoot || !hasApt) {
  console.error(
    `[shopkit] Chromium is missing at ${path} and cannot be installed here (needs root and apt-get).`,
  );
  console.error(
    '[shopkit] Install it (apt-get install chromium) or set CHROMIUM_PATH; the browser tests will fail without it.',
  );
  process.exit(0);
}
console.error('[shopkit] Installing Chromium for the browser tests (apt-get install chromium)…');
try {
  execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
} catch (e) {
  console.error(`[shopkit] Installing Chromium failed: ${e.message}. The browser tests will fail.`);
}
