/**
 * Starting things on day one, the way a storefront team meets them: `shopkit-emulator` given a
 * data directory it cannot use, signals during start-up and from a closed terminal, `--version`
 * and `--help`, and `npm start` (scripts/start.mjs; the scripts have no tests of their own) on a
 * port in use, before `npm install`, and when its terminal goes away.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../src/server.ts';
import { exited, runCli, startCli } from './faults-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'shopkit-cli-audit3-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) {
    // start.mjs runs in a group of its own: its emulator and dev server go too, even if it died.
    if (c.spawnargs.some((a) => a.endsWith('start.mjs')))
      try {
        process.kill(-c.pid!, 'SIGKILL');
      } catch {} // the group is gone
    else if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  }
  // Made by one test: absent when only others ran.
  if (existsSync(join(dir, 'read-only'))) chmodSync(join(dir, 'read-only'), 0o755);
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the CLI with `args` and resolves once it has exited, with its code and output. */
async function run(args: string[]) {
  const cli = runCli(args);
  children.push(cli.child);
  const out = await cli.printed('\n').catch(() => '');
  await exited(cli.child);
  return { code: cli.child.exitCode, signal: cli.child.signalCode, out, err: cli.stderr() };
}

describe('shopkit-emulator on a data directory it cannot use', () => {
  it('names a --db that is a file, instead of "EEXIST: … mkdir"', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'mine\n');
    const r = await run(['--port', '0', '--db', file]);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `shopkit-emulator: could not start: the data directory ${file} is a file, not a directory; give the emulator a directory\n`,
    );
    expect(readFileSync(file, 'utf8')).toBe('mine\n');
  });

  it('refuses a directory of other files (--db . in a project) and writes nothing into it', async () => {
    const project = join(dir, 'project');
    mkdirSync(join(project, 'src'), { recursive: true });
    writeFileSync(join(project, 'package.json'), '{}');
    const r = await run(['--port', '0', '--db', project]);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `shopkit-emulator: could not start: ${project} is not an emulator data directory: it holds other files (package.json, src) and no database; give the emulator a new or empty directory\n`,
    );
    // PGlite would have put PG_VERSION, base/, global/, pg_wal/ … beside the project's files.
    expect(readdirSync(project).sort()).toEqual(['package.json', 'src']);
  });

  it('says a directory it may not write is not writable, instead of "could not start: undefined"', async () => {
    const readOnly = join(dir, 'read-only');
    mkdirSync(readOnly);
    chmodSync(readOnly, 0o555);
    const r = await run(['--port', '0', '--db', readOnly]);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `shopkit-emulator: could not start: the data directory ${readOnly} cannot be written (permission denied); make it writable, or give the emulator another directory\n`,
    );
  });

  it('says data of another PostgreSQL version cannot be read, instead of "PGlite failed to initialize properly"', async () => {
    const older = join(dir, 'older');
    mkdirSync(older);
    writeFileSync(join(older, 'PG_VERSION'), '17\n');
    const r = await run(['--port', '0', '--db', older]);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `shopkit-emulator: could not start: the data directory ${older} could not be opened: it holds PostgreSQL 17 data that this emulator's PGlite cannot read (written by another version, or damaged); move it away and start on a new directory\n`,
    );
    expect(readdirSync(older)).toEqual(['PG_VERSION']);
  });

  it('startEmulator refuses the same directory of other files in a sentence', async () => {
    const project = join(dir, 'project2');
    mkdirSync(project);
    writeFileSync(join(project, 'notes.txt'), 'x');
    await expect(startEmulator({ db: project, port: 0, seed: 'none' })).rejects.toThrow(
      `${project} is not an emulator data directory: it holds other files (notes.txt) and no database`,
    );
    expect(readdirSync(project)).toEqual(['notes.txt']);
  });
});

describe('shopkit-emulator and signals', () => {
  it('stopped during start-up (a new data directory being written), it finishes, closes the storage, exits 0 and prints no ready line', async () => {
    const data = join(dir, 'interrupted');
    const cli = startCli(data);
    children.push(cli.child);
    // The claim file appears when the storage is being opened: well into start-up.
    while (!existsSync(join(data, 'shopkit-emulator.pid'))) await new Promise((r) => setTimeout(r, 20));
    cli.child.kill('SIGTERM');
    await exited(cli.child);
    expect(cli.child.signalCode).toBeNull();
    expect(cli.child.exitCode).toBe(0);
    await expect(cli.ready).rejects.toThrow('exited early with 0');
    expect(cli.stderr()).toContain('shopkit-emulator: stopping once started');
    expect(existsSync(join(data, 'shopkit-emulator.pid'))).toBe(false);
    // The directory is whole: it opens again.
    const again = startCli(data);
    children.push(again.child);
    await again.ready;
    again.child.kill('SIGTERM');
    await exited(again.child);
    expect(again.child.exitCode).toBe(0);
  }, 120_000);

  it('stops cleanly on SIGHUP (its terminal closed) with exit code 0', async () => {
    const data = join(dir, 'hangup');
    const cli = startCli(data);
    children.push(cli.child);
    await cli.ready;
    cli.child.kill('SIGHUP');
    await exited(cli.child);
    expect(cli.child.signalCode).toBeNull();
    expect(cli.child.exitCode).toBe(0);
    expect(existsSync(join(data, 'shopkit-emulator.pid'))).toBe(false);
  }, 120_000);
});

describe('shopkit-emulator flags', () => {
  it('prints its version with --version', async () => {
    const { version } = JSON.parse(
      readFileSync(fileURLToPath(new URL('../package.json', import.meta.url)), 'utf8'),
    );
    const r = await run(['--version']);
    expect(r.code).toBe(0);
    expect(r.out).toBe(`shopkit-emulator ${version}\n`);
  });

  it('--help names every flag with what it does', async () => {
    const r = await run(['--help']);
    expect(r.code).toBe(0);
    for (const flag of [
      '--port <n>',
      '--host <h>',
      '--db <spec>',
      '--seed demo|none',
      '--allowed-origin <url>',
      '--json',
      '--webhook <url>',
      '--webhook-retry-ms <n>',
      '--webhook-attempts <n>',
      '--help, -h',
      '--version',
    ])
      expect(r.out).toContain(`\n  ${flag} `);
  });

  it('reads a negative number as the value it is, not as an "ambiguous" option', async () => {
    const r = await run(['--port', '-1']);
    expect(r.code).toBe(2);
    expect(r.err.split('\n')[0]).toBe('shopkit-emulator: --port must be 0 to 65535, got -1');
    const attempts = await run(['--port', '0', '--webhook-attempts', '-3']);
    expect(attempts.err.split('\n')[0]).toBe('shopkit-emulator: --webhook-attempts must be 1 to 100, got -3');
  });

  it('names a --host that is no address of this machine', async () => {
    const r = await run(['--port', '0', '--db', 'memory', '--host', 'no-such-host.invalid']);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      'shopkit-emulator: could not start: cannot listen on --host no-such-host.invalid: not an address of this machine (127.0.0.1 is this machine alone, 0.0.0.0 every interface)\n',
    );
  });
});

describe('npm start (scripts/start.mjs)', () => {
  const script = fileURLToPath(new URL('../../../scripts/start.mjs', import.meta.url));

  /** Runs start.mjs in `cwd` in a process group of its own. */
  function start(env: NodeJS.ProcessEnv, cwd: string, path = script) {
    const child = spawn(process.execPath, [path], {
      cwd,
      env: { ...process.env, DATABASE_URL: 'memory', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
    });
    child.stderr!.on('data', (d) => {
      out += d;
    });
    return { child, out: () => out };
  }

  async function freePort() {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    return port;
  }

  /** Whether `pid` is a running process (a zombie waiting for its parent is not). */
  const alive = (pid: number) => {
    try {
      return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    } catch {
      return false;
    }
  };

  it('before npm install: one sentence that says to run it, exit code 1', async () => {
    // A copy of the script where nothing is installed beside it.
    const bare = join(dir, 'bare');
    mkdirSync(join(bare, 'scripts'), { recursive: true });
    copyFileSync(script, join(bare, 'scripts/start.mjs'));
    const s = start({}, bare, join(bare, 'scripts/start.mjs'));
    await exited(s.child);
    expect(s.child.exitCode).toBe(1);
    expect(s.out()).toBe(
      '[shopkit] the dependencies are not installed: run `npm install` first, then `npm start`\n',
    );
  });

  it('names a storefront port in use and the variable to set, exit code 1, nothing started', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    const cwd = mkdtempSync(join(dir, 'taken-'));
    try {
      const s = start({ EMULATOR_PORT: '0', STOREFRONT_PORT: String(port) }, cwd);
      await exited(s.child);
      expect(s.child.exitCode).toBe(1);
      expect(s.out()).toBe(
        `[shopkit] port ${port} on 127.0.0.1 is in use (another \`npm start\`?). Stop it, or choose another port: STOREFRONT_PORT=${port + 1} npm start\n`,
      );
      expect(readdirSync(cwd)).toEqual([]);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });

  /** npm start, once it has printed its banner, with the pids of its two children. */
  async function running(name: string) {
    const cwd = mkdtempSync(join(dir, `${name}-`));
    const s = start({ EMULATOR_PORT: '0', STOREFRONT_PORT: String(await freePort()) }, cwd);
    const ended = exited(s.child);
    while (!s.out().includes('Press Ctrl-C')) {
      if (s.child.exitCode !== null) throw new Error(`npm start exited early:\n${s.out()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const kids = execFileSync('ps', ['-o', 'pid=', '--ppid', String(s.child.pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
    expect(kids).toHaveLength(2); // the emulator and vite
    return { ...s, ended, kids };
  }

  it('stops the emulator and the dev server when it is sent SIGHUP (its terminal closed)', async () => {
    const { child, ended, kids } = await running('hup');
    // To the script alone, not its group: what a closed terminal or `kill -HUP` does to it.
    child.kill('SIGHUP');
    await ended;
    expect(child.exitCode).toBe(0);
    // Its children were stopped, not left behind: poll until they are gone (the test's timeout
    // bounds it).
    while (kids.some(alive)) await new Promise((r) => setTimeout(r, 100));
    expect(kids.filter(alive)).toEqual([]);
  }, 120_000);

  it('leaves neither the emulator nor the dev server running when it is killed outright (SIGKILL)', async () => {
    const { child, ended, kids } = await running('kill');
    // The script alone, which can run no handler: an out-of-memory kill, `kill -9`, a crashed
    // supervisor. Its children notice that it is gone and stop as on Ctrl-C.
    child.kill('SIGKILL');
    await ended;
    while (kids.some(alive)) await new Promise((r) => setTimeout(r, 100));
    expect(kids.filter(alive)).toEqual([]);
  }, 120_000);
});
