/**
 * The merchant console's elevated client. The API key is pasted by the merchant and kept in
 * sessionStorage only (gone when the tab closes); it is never part of the bundle.
 */
import { type AnyClient, ApiKeyStrategy, createClient } from '@shopkit/sdk';
import { config } from '../config.ts';

const KEY = 'shopkit:merchant:apiKey';

export const readKey = () => sessionStorage.getItem(KEY);
export const saveKey = (key: string) => sessionStorage.setItem(KEY, key);
export const forgetKey = () => sessionStorage.removeItem(KEY);

export const merchantClient = (apiKey: string): AnyClient =>
  createClient({ baseUrl: config.baseUrl, auth: ApiKeyStrategy({ apiKey }) });
