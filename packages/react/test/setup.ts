/**
 * Vitest set-up of the React tests: `waitFor` and `findBy…` wait up to 10 s (1 s by default) for
 * what they poll. A test file run beside the rest of the suite on a loaded machine (load average
 * about 20) gave up after 1 s on a cart that came a moment later; a failing wait only takes longer
 * to say so, a passing one is as quick as before.
 */
import { configure } from '@testing-library/react';

configure({ asyncUtilTimeout: 10_000 });
