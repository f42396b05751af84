/**
 * Once per test run, before any test file starts: the platform SDK for the conformance tests
 * (`platform-sdk*.test.ts`). Installed here and not in each file's set-up, where files running side
 * by side on a fresh clone would start several `npm install`s in the same folder at once.
 *
 * Without the npm registry the install fails. The rest of the emulator's suite still runs; the
 * conformance tests then try once more each and fail with npm's report.
 */
import { ensurePlatformSdk } from '../../../bench/platform-sdk.ts';

export default function setup() {
  try {
    ensurePlatformSdk();
  } catch (error) {
    console.error(
      `[platform-sdk] could not install the platform SDK; the conformance tests will fail: ${(error as Error).message}`,
    );
  }
}
