/**
 * The login flows' code exchange (`authorization_code` at `/oauth2/token`), shared by the redirect
 * flow (`identity.getMemberTokens`) and the direct login (`getMemberTokensForDirectLogin`), and how
 * their failures are reported: as a call's are (spec 7: to the client's `onError`, then thrown), as
 * `ShopkitError`s with the spec's messages.
 * @module
 */
import type { AnyClient } from '../client.ts';
import { fail } from '../http/engine.ts';
import { ShopkitError } from '../http/errors.ts';
import type { OAuthStrategyApi } from './oauth.ts';
import { TokenRole, type Tokens } from './tokens.ts';

/**
 * The client's `OAuthStrategy`. A client without one is refused with a `ShopkitError`
 * `OAUTH_REQUIRED`, reported to `onError` as a failure of the call at `path` it stops.
 */
export function oauth(client: AnyClient, path = '/oauth2/token'): OAuthStrategyApi {
  const s = client.auth as OAuthStrategyApi | undefined;
  if (!s?.tokenRequest)
    fail(
      client,
      new ShopkitError('This call needs a client created with OAuthStrategy', {
        code: 'OAUTH_REQUIRED',
        description: 'An OAuthStrategy client is required',
      }),
      'POST',
      path,
    );
  return s;
}

/** Reports a failure of a token exchange to `onError`, then throws it. */
export const tokenFailure = (client: AnyClient, message: string, code: string, cause?: unknown): never =>
  fail(client, new ShopkitError(message, { code, description: message, cause }), 'POST', '/oauth2/token');

/** Exchanges an authorization code for member tokens; `Failed to get member tokens` when refused. */
export async function exchangeCode(
  client: AnyClient,
  auth: OAuthStrategyApi,
  code: string,
  codeVerifier: string,
  redirectUri?: string,
): Promise<Tokens> {
  try {
    return await auth.tokenRequest(
      {
        clientId: auth.clientId,
        grantType: 'authorization_code',
        ...(redirectUri ? { redirectUri } : {}),
        code,
        codeVerifier,
      },
      TokenRole.MEMBER,
      undefined,
      // The calling client's fetch (a derived client's own), not the first client's.
      client.transport,
    );
  } catch (cause) {
    return tokenFailure(
      client,
      'Failed to get member tokens',
      (cause as ShopkitError).code ?? 'TOKEN_REQUEST_FAILED',
      cause,
    );
  }
}
