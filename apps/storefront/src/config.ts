/** Where the storefront finds the platform: set by `npm start` (VITE_SHOPKIT_URL, VITE_SHOPKIT_CLIENT_ID). */
export const config = {
  baseUrl: import.meta.env.VITE_SHOPKIT_URL ?? 'http://127.0.0.1:4000',
  clientId: import.meta.env.VITE_SHOPKIT_CLIENT_ID ?? '',
};
