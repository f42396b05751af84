/**
 * Real-browser helpers: Debian's Chromium driven by playwright-core, and the storefront served by
 * Vite against a test emulator.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startTestEmulator, type TestEmulator } from '@shopkit/emulator/testing';
import { type Browser, chromium } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `Chromium not found at ${CHROMIUM}: run "node scripts/ensure-chromium.mjs" (npm test does) or set CHROMIUM_PATH.`,
    );
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export interface Storefront {
  url: string;
  emu: TestEmulator;
  stop(): Promise<void>;
}

/** Starts an emulator and the storefront's dev server pointed at it. */
export async function startStorefront(): Promise<Storefront> {
  const root = fileURLToPath(new URL('..', import.meta.url));
  let vite: ViteDevServer | undefined;
  // The storefront's origin must be allowed by the emulator; pick the port first.
  vite = await createServer({
    root,
    configFile: `${root}/vite.config.ts`,
    logLevel: 'silent',
    // No watcher and no HMR: other work in the tree must not reload pages under test.
    server: { port: 0, host: '127.0.0.1', hmr: false, watch: null },
  });
  await vite.listen();
  const url = vite.resolvedUrls!.local[0]!.replace(/\/$/, '');
  const emu = await startTestEmulator('pglite', { allowedOrigins: [url] });
  process.env.VITE_SHOPKIT_URL = emu.url;
  process.env.VITE_SHOPKIT_CLIENT_ID = emu.demo.clientId;
  // Env is read when modules are transformed; restart so the values apply.
  await vite.restart();
  return {
    url: vite.resolvedUrls!.local[0]!.replace(/\/$/, ''),
    emu,
    async stop() {
      await vite?.close();
      await emu.stop();
    },
  };
}

/** Runs axe-core in the page; returns the serious and critical violations (id, help, targets). */
export async function axeViolations(page: import('playwright-core').Page) {
  const { createRequire } = await import('node:module');
  const { readFileSync } = await import('node:fs');
  const source = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.addScriptTag({ content: source });
  const result = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as { axe: { run(o?: unknown): Promise<{ violations: AxeViolation[] }> } }
    ).axe;
    return axe.run({ resultTypes: ['violations'] });
  });
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }));
}

interface AxeViolation {
  id: string;
  impact?: string;
  help: string;
  nodes: { target: string[] }[];
}
