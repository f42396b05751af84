/**
 * Elevated access for apps: the client-credentials grant, the token cached until shortly before
 * it expires, renewal shared by concurrent calls.
 * @module
 */
import type { AuthStrategy, Transport } from '../client.ts';
import { ShopkitError } from '../http/errors.ts';

export interface AppOptions {
  appId: string;
  /** Keep it on a server. */
  appSecret: string;
  instanceId?: string;
}

/** @example createClient({ auth: AppStrategy({ appId, appSecret, instanceId }), modules: { products } }) */
export function AppStrategy(options: AppOptions): AuthStrategy & { invalidate(): void } {
  let token: { value: string; expiresAt: number } | undefined;
  let inflight: Promise<string> | undefined;
  async function fetchToken(t: Transport) {
    const res = await t.fetch(t.baseUrl + '/oauth2/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      signal: AbortSignal.timeout(t.timeoutMs ?? 30_000),
      body: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: options.appId,
        client_secret: options.appSecret,
        instance_id: options.instanceId,
      }),
    });
    const json = (await res.json().catch(() => ({}))) as { access_token?: string; expires_in?: number };
    if (res.status !== 200 || !json.access_token)
      throw new ShopkitError('something went wrong', {
        status: res.status,
        code: 'TOKEN_REQUEST_FAILED',
        description: 'The app token request was refused',
        requestId: res.headers.get('x-wix-request-id'),
      });
    token = { value: json.access_token, expiresAt: Date.now() + (Number(json.expires_in) - 30) * 1000 };
    return token.value;
  }
  return {
    elevated: true,
    async getAuthHeaders(t) {
      if (token && token.expiresAt > Date.now()) return { Authorization: token.value };
      inflight ??= fetchToken(t).finally(() => {
        inflight = undefined;
      });
      return { Authorization: await inflight };
    },
    async onUnauthorized() {
      token = undefined;
      return true;
    },
    invalidate() {
      token = undefined;
    },
  };
}
