#!/usr/bin/env node
// Runs the emulator's TypeScript sources through tsx's loader: nothing to build first.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
