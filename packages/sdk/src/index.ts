/**
 * `@shopkit/sdk`: a typed client for the hosted commerce platform.
 * @module
 */

export type { ApiKeyOptions } from './auth/api-key.ts';
export { ApiKeyStrategy } from './auth/api-key.ts';
export type { AppInstallTokens, AppOptions } from './auth/app.ts';
export { AppStrategy, exchangeAppInstallCode } from './auth/app.ts';
export type { CookieJar, CookieOptions, RequestLike } from './auth/cookie.ts';
export { cookieStorage, isCrossSiteWrite, tokenCookieName } from './auth/cookie.ts';
export {
  AddressTag,
  CAPTCHA_SITE_KEY,
  EmailTag,
  FactorStatus,
  FactorType,
  IdentityStatus,
  INVISIBLE_CAPTCHA_SITE_KEY,
  LoginState,
  PhoneTag,
  PrivacyStatus,
  StateType,
  StatusReason,
  SubjectType,
  TenantType,
  VerificationTarget,
} from './auth/enums.ts';
export type { AccessLevel } from './auth/guard.ts';
export { requireAccess, webMethod } from './auth/guard.ts';
export type { OAuthEvents, OAuthOptions, OAuthStrategyApi } from './auth/oauth.ts';
export { OAuthStrategy } from './auth/oauth.ts';
export { generateChallenge, generateState, generateVerifier } from './auth/pkce.ts';
export type { AccessToken, RefreshToken, TokenStorage, Tokens } from './auth/tokens.ts';
export { emptyTokens, memoryStorage, TokenRole, webStorage } from './auth/tokens.ts';
export type {
  AnyClient,
  AuthStrategy,
  BaseClient,
  Client,
  ClientOptions,
  ClientState,
  Modules,
  RequestOptions,
  RetryOptions,
  SharedState,
  Transport,
} from './client.ts';
export { createClient } from './client.ts';
export {
  CatalogVersion,
  InventoryStatus,
  MeasurementUnit,
  MediaItemType,
  OptionType,
  ProductDiscountType,
  ProductType,
  QuerySortOrder,
} from './enums/catalog.ts';
export {
  ChannelType,
  ChargeType,
  DescriptionLineType,
  DiscountType,
  FallbackReason,
  FileType,
  IdentityType,
  ItemAvailabilityStatus,
  ItemTypePreset,
  JurisdictionType,
  ManualCalculationReason,
  PaymentOptionType,
  PickupMethod,
  RateType,
  RuleType,
  Severity,
  STORES_APP_ID,
  SubscriptionFrequency,
  SuggestedFix,
  TaxableAddressType,
  VatType,
  WeightUnit,
} from './enums/commerce.ts';
export { graphql, request } from './http/engine.ts';
export type { ErrorDetails, FieldViolation } from './http/errors.ts';
export {
  ApplicationError,
  HttpError,
  isNetworkError,
  ShopkitError,
  SPI_ERROR_TYPE,
  SystemError,
  ValidationError,
} from './http/errors.ts';
export type { CallOptions, Method, OpSpec } from './http/op.ts';
export { call, op } from './http/op.ts';
export * as cart from './modules/cart.ts';
export * as collections from './modules/collections.ts';
export * as identity from './modules/identity.ts';
export type {
  BulkAdjust,
  BulkResult,
  BulkSet,
  NewProduct,
  Product,
  ProductInput,
  ProductOptionsAvailability,
  SeoData,
  SeoTag,
  StoreVariant,
  Variant,
} from './modules/products.ts';
export * as products from './modules/products.ts';
export * as redirects from './modules/redirects.ts';
export type {
  CursorQuery,
  Paging,
  PagingMetadata,
  PlatformQuery,
  QueryPage,
  Sorting,
  SortOrder,
} from './query.ts';
export { DEFAULT_LIMIT, QueryBuilder } from './query.ts';
export type { Kind, TransformSpec, WireImage } from './transforms.ts';
export {
  address,
  date,
  float,
  image,
  imageFromWire,
  imageToWire,
  nest,
  url,
  video,
  videoFromWire,
  videoToWire,
} from './transforms.ts';
export * as webhooks from './webhooks.ts';
