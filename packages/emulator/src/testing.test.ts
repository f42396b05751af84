import { describe, expect, it } from 'vitest';
import { type Backend, startTestEmulator } from './testing.ts';

describe('startTestEmulator(backend, options)', () => {
  it('refuses options passed first, or an unknown backend, with a TypeError instead of defaults', async () => {
    const optionsFirst = startTestEmulator({ seed: 'none' } as unknown as Backend);
    await expect(optionsFirst).rejects.toThrow(TypeError);
    await expect(optionsFirst).rejects.toThrow(
      "startTestEmulator(backend, options): backend must be 'pglite' or 'postgres', got an object (the options go second)",
    );
    await expect(startTestEmulator('memory' as Backend)).rejects.toThrow(
      `backend must be 'pglite' or 'postgres', got "memory"`,
    );
  });
});
