/**
 * One POST to a token endpoint (`/oauth2/token`, or the apps' legacy `/oauth/access`), shared by
 * the OAuth and app strategies: JSON in, the token answer out, within the client's timeout.
 * @module
 */
import type { Transport } from '../client.ts';
import { ShopkitError } from '../http/errors.ts';

/** What a token endpoint answers. */
interface TokenResponse {
  access_token?: string;
  refresh_token?: string;
  expires_in?: number | string;
}

/**
 * Posts `body` to `path` and returns the answer. A network failure or any answer without an
 * access token throws `something went wrong`, with the platform's error code when it gave one;
 * no message or detail repeats the body's secrets.
 */
export async function postTokenRequest(
  t: Transport,
  path: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<TokenResponse & { access_token: string }> {
  let res: Response | undefined;
  let json: TokenResponse & { details?: { applicationError?: { code?: string } } } = {};
  let cause: unknown;
  try {
    res = await t.fetch(t.baseUrl + path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
      // A token endpoint that never answers must not hang every call behind it.
      signal: AbortSignal.timeout(t.timeoutMs ?? 30_000),
    });
    json = await res.json().catch(() => json);
  } catch (e) {
    cause = e;
  }
  if (res?.status !== 200 || !json.access_token)
    throw new ShopkitError('something went wrong', {
      status: res?.status,
      code: res ? String(json.details?.applicationError?.code ?? 'TOKEN_REQUEST_FAILED') : 'NETWORK_ERROR',
      description: res ? 'The token request was refused' : 'The token request failed',
      requestId: res?.headers.get('x-wix-request-id'),
      cause,
    });
  return json as TokenResponse & { access_token: string };
}
