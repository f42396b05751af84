import type { AuthStrategy } from '../client.ts';

export interface ApiKeyOptions {
  /** The API key, sent as the raw `Authorization` value. Keep it on a server. */
  apiKey: string;
  /** Sent as `wix-site-id`. */
  siteId?: string;
  /** Sent as `wix-account-id`. */
  accountId?: string;
}

/**
 * Elevated access with an API key, for servers and merchant tools. Never ship a key to a browser.
 * @example createClient({ auth: ApiKeyStrategy({ apiKey: process.env.SHOPKIT_API_KEY!, siteId }) })
 */
export function ApiKeyStrategy(options: ApiKeyOptions): AuthStrategy {
  const headers: Record<string, string> = { Authorization: options.apiKey };
  if (options.siteId) headers['wix-site-id'] = options.siteId;
  if (options.accountId) headers['wix-account-id'] = options.accountId;
  return { elevated: true, getAuthHeaders: async () => headers };
}
