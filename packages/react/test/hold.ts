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
