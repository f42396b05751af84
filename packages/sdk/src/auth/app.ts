/**
 * Elevated access for apps (wire §5.6, §6), in three ways: the client-credentials grant for an
 * instance; the refresh token an app got when it was installed (the legacy endpoint
 * `POST /oauth/access`); or an access token the app was handed, traded for one of its own
 * (`strip_bound_session`). The token is cached until shortly before it expires (or, when the
 * answer gives no lifetime, until a call is refused with 401) and renewal is shared by concurrent
 * calls. {@link exchangeAppInstallCode} turns the code of an installation into that refresh token.
 * @module
 */
import type { AnyClient, AuthStrategy, Transport } from '../client.ts';
import { ShopkitError } from '../http/errors.ts';
import { postTokenRequest, within } from './token-request.ts';

/** An app's credentials and what it acts on: an instance, an installation's refresh token, or a handed token. */
export type AppOptions = {
  appId: string;
  /** Keep it on a server. */
  appSecret: string;
} & (
  | {
      /** The app instance (site installation) to act on; left out, the token is the app's own, for no site, and the site's calls refuse it (403). */
      instanceId?: string;
      refreshToken?: undefined;
      accessToken?: undefined;
    }
  | {
      /** The refresh token of an installation (see {@link exchangeAppInstallCode}). */
      refreshToken: string;
      instanceId?: undefined;
      accessToken?: undefined;
    }
  | {
      /** An access token the app was handed (a dashboard page's, say), traded for the app's own. */
      accessToken: string;
      instanceId?: undefined;
      refreshToken?: undefined;
    }
);

/** Seconds before the stated expiry at which a cached token is renewed (at most half its life). */
const LEEWAY_SECONDS = 30;

/** @example createClient({ auth: AppStrategy({ appId, appSecret, instanceId }), modules: { products } }) */
export function AppStrategy(options: AppOptions): AuthStrategy & { invalidate(): void } {
  const { appId, appSecret } = options;
  let token: { value: string; expiresAt: number } | undefined;
  let inflight: Promise<string> | undefined;
  async function fetchToken(t: Transport) {
    const json = options.refreshToken
      ? await postTokenRequest(t, '/oauth/access', {
          refresh_token: options.refreshToken,
          client_id: appId,
          client_secret: appSecret,
          grant_type: 'refresh_token',
        })
      : await postTokenRequest(
          t,
          '/oauth2/token',
          options.accessToken
            ? {
                grant_type: 'strip_bound_session',
                client_secret: appSecret,
                access_token: options.accessToken,
              }
            : {
                grant_type: 'client_credentials',
                client_id: appId,
                client_secret: appSecret,
                instance_id: options.instanceId,
              },
        );
    const seconds = Number(json.expires_in);
    token = {
      value: json.access_token,
      // No lifetime given: kept until a call is refused with 401 (`onUnauthorized`). Renewed at
      // most half its life early: one living no longer than the leeway was fetched for every call.
      expiresAt:
        seconds > 0
          ? Date.now() + (seconds - Math.min(LEEWAY_SECONDS, seconds / 2)) * 1000
          : Number.POSITIVE_INFINITY,
    };
    return token.value;
  }
  return {
    elevated: true,
    async getAuthHeaders(t, signal) {
      if (token && token.expiresAt > Date.now()) return { Authorization: token.value };
      inflight ??= fetchToken(t).finally(() => {
        inflight = undefined;
      });
      return { Authorization: await within(inflight, signal) };
    },
    async onUnauthorized(_t, rejected) {
      // Renewed since that request went out (another call's 401): replay with the new token, not
      // one grant more for every 401 that was on its way.
      if (!token || !rejected || token.value === rejected.split(',')[0]) token = undefined;
      return true;
    },
    invalidate() {
      token = undefined;
    },
  };
}

/** What an installation's code gives: a first access token and the refresh token to keep. */
export interface AppInstallTokens {
  accessToken: string;
  /** Store it on the server with the instance id: `AppStrategy({ appId, appSecret, refreshToken })`. */
  refreshToken: string;
}

/**
 * Trades the one-shot code an installation sent to the app's redirect URL (with `instanceId`) for
 * its tokens, at the legacy endpoint `POST /oauth/access` (wire §5.6), through the client's
 * transport (base URL, fetch, timeout). Server-side only: it needs the app secret.
 * @example
 * const { refreshToken } = await exchangeAppInstallCode(createClient({ baseUrl }), { appId, appSecret, code });
 */
export async function exchangeAppInstallCode(
  client: AnyClient,
  input: { appId: string; appSecret: string; code: string },
): Promise<AppInstallTokens> {
  try {
    const json = await postTokenRequest(client.transport, '/oauth/access', {
      code: input.code,
      client_id: input.appId,
      client_secret: input.appSecret,
      grant_type: 'authorization_code',
    });
    if (!json.refresh_token)
      throw new ShopkitError('something went wrong', {
        status: 200,
        code: 'TOKEN_REQUEST_FAILED',
        description: 'The install code exchange gave no refresh token',
      });
    return { accessToken: json.access_token, refreshToken: json.refresh_token };
  } catch (e) {
    // Reported to the client's `onError` before it is thrown, as every failure is (spec 7).
    client._.o.onError?.(e as ShopkitError, { method: 'POST', path: '/oauth/access' });
    throw e;
  }
}
