/**
 * A stand-in browser for the silent login (`getMemberTokensForDirectLogin`) outside a real one: a
 * `window` that receives messages and a `document` whose hidden frame "loads" its URL and then
 * posts whatever `onLoad` returns (origin, source and data of a `message` event). `frame` is the
 * frame's own window, the source a genuine answer has.
 */
export interface FrameMessage {
  origin: string;
  source: unknown;
  data: unknown;
}

/** Installs the stand-in globals; call the returned function to remove them. */
export function standInBrowser(onLoad: (url: string, frame: object) => FrameMessage | undefined) {
  const g = globalThis as { window?: unknown; document?: unknown };
  const win = new EventTarget();
  g.window = win;
  g.document = {
    body: { appendChild() {} },
    createElement() {
      const contentWindow = {};
      return {
        style: {},
        contentWindow,
        remove() {},
        set src(url: string) {
          const message = onLoad(url, contentWindow);
          if (message) setTimeout(() => win.dispatchEvent(Object.assign(new Event('message'), message)));
        },
      };
    },
  };
  return () => {
    delete g.window;
    delete g.document;
  };
}
