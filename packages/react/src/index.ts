/**
 * `@shopkit/react`: a provider, query-option factories and hooks over TanStack Query. No business
 * logic and no cache of its own; SSR-safe (nothing touches `window` at import time).
 * @module
 */

export type {
  AddToCartVars,
  Cart,
  CartContext,
  CheckoutVars,
  CreateCheckoutOptions,
  EstimateTotalsOptions,
  EstimateTotalsResponse,
  LineItem,
  LineItemInput,
  RedirectCallbacks,
} from './cart.ts';
export {
  cartQuery,
  estimateTotalsQuery,
  useAddToCart,
  useApplyCoupon,
  useCart,
  useCartCount,
  useCartUpdating,
  useCheckout,
  useEstimateTotals,
  useRemoveCoupon,
  useRemoveLineItems,
  useUpdateLineItemQuantity,
} from './cart.ts';
export {
  collectionQuery,
  collectionsQuery,
  optionsAvailabilityQuery,
  productBySlugQuery,
  productsQuery,
  useCollectionBySlug,
  useCollections,
  useOptionsAvailability,
  useProductBySlug,
  useProducts,
} from './catalog.ts';
export { shopkitKeys } from './keys.ts';
export type { ShopkitProviderProps } from './provider.tsx';
export { ShopkitProvider, useShopkit } from './provider.tsx';
export type { ShopkitHookError } from './retry.ts';
export type {
  LoginHookOptions,
  LoginParams,
  LoginResult,
  LogoutVars,
  MemberAuth,
  MemberSession,
  RegisterParams,
  Role,
  VerifyEmailVars,
} from './session.ts';
export {
  MemberSessionError,
  useLogin,
  useLogout,
  useMemberSession,
  useRegister,
  useResendVerification,
  useSendPasswordReset,
  useVerifyEmail,
} from './session.ts';
