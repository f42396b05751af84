/**
 * The pending e-mail verification of this tab: the state token of the login or registration that
 * asked for a code, kept in sessionStorage so that /verify still works after a reload. It is a
 * short-lived state token (10 minutes on the platform), not a credential: it only lets a code be
 * entered or resent. It never goes into a URL or a log, and is dropped once used.
 */
const KEY = 'shopkit:verification';

const area = () => {
  try {
    return globalThis.sessionStorage;
  } catch {
    return undefined;
  }
};

export const pendingVerification = {
  get: (): string | undefined => area()?.getItem(KEY) ?? undefined,
  /** Keeps `stateToken`, or drops the pending one when there is none. */
  set(stateToken: string | undefined) {
    if (stateToken) area()?.setItem(KEY, stateToken);
    else area()?.removeItem(KEY);
  },
};
