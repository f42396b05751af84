/** Where the storefront finds the platform: set by `npm start` (VITE_SHOPKIT_URL, VITE_SHOPKIT_CLIENT_ID). */
const baseUrl: string = import.meta.env.VITE_SHOPKIT_URL ?? 'http://127.0.0.1:4000';

export const config = {
  baseUrl,
  clientId: import.meta.env.VITE_SHOPKIT_CLIENT_ID ?? '',
  /** Where `wix:image://v1/<id>` media references are served (the emulator serves `/media/<id>`). */
  mediaUrl: import.meta.env.VITE_SHOPKIT_MEDIA_URL ?? `${baseUrl}/media`,
  /**
   * How long the silent login's hidden frame may take after a login, registration or
   * verification (the SDK waits 120 s). It answers in well under a second when it works; past
   * this the shopper is told the account is fine and asked to log in.
   */
  silentLoginTimeoutMs: 10_000,
};

/** A `wix:image://v1/<id>/…` reference (as cart lines carry) or a URL → a URL an `<img>` can load. */
export function imageUrl(ref: string | undefined) {
  if (!ref) return undefined;
  const m = /^wix:image:\/\/v1\/([^/#]+)/.exec(ref);
  return m ? `${config.mediaUrl}/${m[1]}` : ref;
}
