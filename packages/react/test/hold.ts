import { createClient, OAuthStrategy } from '@shopkit/sdk';

/**
 * A fetch for the hooks' tests whose answers to chosen paths can be held back: `hold(suffix)`
 * keeps every request whose URL ends with `suffix` waiting until the release it returns is called.
 */
export function holdableFetch() {
  const held = new Map<string, Promise<void>>();
  const fetchFn: typeof fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    for (const [suffix, wait] of held) if (url.endsWith(suffix)) await wait;
    return fetch(input, init);
  };
  const hold = (suffix = '/add-to-cart') => {
    let release!: () => void;
    held.set(
      suffix,
      new Promise((r) => {
        release = r;
      }),
    );
    return () => {
      held.delete(suffix);
      release();
    };
  };
  return { fetchFn, hold };
}

/**
 * A visitor's client of the emulator at `baseUrl` whose requests are counted by path (`count`),
 * some answered with a chosen status (`failWith(suffix, status)`) and some held (`hold`); the
 * SDK's own retries are off, so that the query client's are what is counted.
 */
export function countedClient(baseUrl: string, clientId: string) {
  const calls: string[] = [];
  const failing = new Map<string, number>();
  const { fetchFn, hold } = holdableFetch();
  const client = createClient({
    baseUrl,
    retry: { attempts: 1 },
    fetch: async (input, init) => {
      const path = new URL(String(input instanceof Request ? input.url : input)).pathname;
      calls.push(path);
      for (const [suffix, status] of failing)
        if (path.endsWith(suffix)) return new Response('{}', { status });
      return fetchFn(input, init);
    },
    auth: OAuthStrategy({ clientId }),
  });
  const failWith = (suffix: string, status: number) => failing.set(suffix, status);
  const count = (suffix: string) => calls.filter((p) => p.endsWith(suffix)).length;
  return { client, calls, count, failWith, hold };
}
