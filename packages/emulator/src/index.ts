/**
 * `@shopkit/emulator`: the commerce platform, locally.
 * @module
 */
export { createEmulator, type EmulatorInstance, type EmulatorOptions } from './app.ts';
export type { Domain, Emulator, EmulatorConfig, Identity, IdentityType } from './context.ts';
export { type Db, type Migration, migrate, openDb, type Sql } from './db/index.ts';
export { type RunningEmulator, startEmulator } from './server.ts';
