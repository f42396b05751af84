/**
 * The emulator's GraphQL schema (UNCONFIRMED: the platform's own is not documented). Types mirror
 * the REST wire entities field for field, so one resolver per root field returns what the REST call
 * returns and graphql-js's default resolver reads the rest: prices are the REST numbers (catalog)
 * and decimal strings (cart), dates ISO strings. Catalog fields call the catalog's query functions;
 * cart fields call the current-cart API as the caller (`GraphqlContext.cart`).
 * @module
 */
import { buildSchema, type GraphQLFieldResolver, isObjectType } from 'graphql';
import type { Emulator, Identity } from '../../context.ts';
import { nestsDeeperThan, tooDeep } from '../../http/decode.ts';
import { invalid, notFound } from '../../http/errors.ts';
import { badTextAt } from '../../http/router.ts';
import { findCollection, queryCollections, seesHidden } from '../catalog/collections.ts';
import { queryProducts } from '../catalog/products.ts';

const SDL = /* GraphQL */ `
"""
Any JSON value: a filter in the platform's query language (\`{"price": {"$gt": 20}}\`), a
variant's choices, a catalog reference's options.
"""
scalar JSON

type Query {
  "A product the caller may see (REST GET /stores-reader/v1/products/{id}); PRODUCT_NOT_FOUND otherwise, INVALID_ARGUMENT for an empty id."
  product(
    id: ID!
    "Cost and profit: refused (PERMISSION_DENIED) unless the caller is elevated (API key, app)."
    includeMerchantSpecificData: Boolean = false
  ): Product
  "Products matching a platform query (REST POST /stores-reader/v1/products/query-platformized)."
  products(
    filter: JSON
    sort: [Sorting!]
    paging: Paging
    "Hidden products too; elevated callers only (refused to everyone else). Without it, visible ones only, for merchants too."
    includeHiddenProducts: Boolean = false
    includeMerchantSpecificData: Boolean = false
  ): ProductsPage
  "A collection by id or by slug (exactly one, not empty); COLLECTION_NOT_FOUND when absent, or hidden from a caller who is not a merchant or app."
  collection(id: ID, slug: String): Collection
  "Collections matching a platform query on id, name, slug, visible (REST POST /v2/collections/query)."
  collections(filter: JSON, sort: [Sorting!], paging: Paging): CollectionsPage
  "The caller's current cart (REST GET /ecom/v1/carts/current); OWNED_CART_NOT_FOUND before the first add."
  currentCart: Cart
  "The current cart priced: discounts, shipping options, tax, totals (REST POST …/carts/current/estimate-totals). Stores nothing."
  estimateCurrentCartTotals(
    selectedShippingOption: ShippingOptionInput
    shippingAddress: AddressInput
    billingAddress: AddressInput
    calculateTax: Boolean
    calculateShipping: Boolean
  ): Totals
}

type Mutation {
  "Adds catalog items, creating the cart on the first add (REST POST …/carts/current/add-to-cart)."
  addToCurrentCart(lineItems: [LineItemInput!]!): Cart
  "Removes line items by id (REST POST …/carts/current/remove-line-items)."
  removeLineItemsFromCurrentCart(ids: [ID!]!): Cart
  "Sets line items' quantities, 0 removing a line (REST POST …/carts/current/update-line-items-quantity)."
  updateCurrentCartLineItemQuantity(lineItems: [LineItemQuantityInput!]!): Cart
  "A checkout of the current cart (REST POST …/carts/current/create-checkout); CART_IS_EMPTY or LINE_ITEMS_NOT_AVAILABLE when it cannot be checked out."
  createCheckoutFromCurrentCart(
    "WEB (the default), POS, …, as on REST."
    channelType: String
    email: String
    shippingAddress: AddressInput
    billingAddress: AddressInput
    selectedShippingOption: ShippingOptionInput
  ): CheckoutCreated
}

input Sorting {
  fieldName: String!
  order: SortOrder = ASC
}

enum SortOrder {
  ASC
  DESC
}

"At most 100 items (the default is 50)."
input Paging {
  limit: Int
  offset: Int
}

input LineItemInput {
  catalogReference: CatalogReferenceInput!
  quantity: Int = 1
}

input LineItemQuantityInput {
  id: ID!
  quantity: Int!
}

input ShippingOptionInput {
  code: String!
  carrierId: ID
}

"An address with the REST field names."
input AddressInput {
  "ISO 3166 alpha-2."
  country: String
  "ISO 3166-2, e.g. US-NY."
  subdivision: String
  city: String
  postalCode: String
  addressLine: String
  addressLine2: String
}

input CatalogReferenceInput {
  "The stores catalog app id."
  appId: String!
  "A product id."
  catalogItemId: ID!
  "\`{variantId}\` or \`{options: {Size: \\"M\\"}}\`, as on the REST call."
  options: JSON
}

type PagingMetadata {
  count: Int!
  offset: Int!
  total: Int!
  "Set when there are more than the count limit; \`total\` is then that limit."
  tooManyToCount: Boolean
}

type ProductsPage {
  products: [Product!]!
  metadata: PagingMetadata!
}

type CollectionsPage {
  collections: [Collection!]!
  metadata: PagingMetadata!
}

type Product {
  id: ID!
  name: String!
  slug: String!
  visible: Boolean!
  "physical, digital or unspecified_product_type."
  productType: String!
  description: String!
  sku: String
  weight: Float
  weightRange: Range
  ribbon: String
  "The ribbon as a list: \`[{text}]\`, or empty."
  ribbons: [Ribbon!]!
  brand: String
  price: PriceData!
  priceData: PriceData!
  convertedPriceData: PriceData!
  priceRange: Range!
  "Merchants only (includeMerchantSpecificData)."
  costAndProfitData: CostAndProfit
  "Merchants only (includeMerchantSpecificData)."
  costRange: Range
  pricePerUnitData: PricePerUnitData
  productDimensions: Dimensions
  packageDimensions: Dimensions
  discount: Discount!
  stock: ProductStock!
  media: Media!
  "Absent (null) on a product stored by an older emulator, as on REST; so are the next two."
  additionalInfoSections: [InfoSection!]
  customTextFields: [CustomTextField!]
  manageVariants: Boolean
  productOptions: [ProductOption!]!
  variants: [Variant!]!
  collectionIds: [ID!]!
  productPageUrl: PageUrl!
  numericId: String!
  inventoryItemId: ID!
  "SEO tags and settings, as given."
  seoData: JSON
  "ISO 8601."
  createdDate: String!
  "ISO 8601."
  lastUpdated: String!
}

type Ribbon {
  text: String!
}

"The product's quantity and the quantity its price per unit is for, e.g. 200 G priced per 100 G."
type PricePerUnitData {
  totalQuantity: Float!
  totalMeasurementUnit: String!
  baseQuantity: Float!
  baseMeasurementUnit: String!
}

"Lengths as decimal strings, as REST sends them."
type Dimensions {
  length: String
  width: String
  height: String
  "MM, CM, M, IN, FT, YD or UNKNOWN_DIMENSIONS_UNIT."
  unit: String!
}

type InfoSection {
  title: String!
  description: String!
}

type CustomTextField {
  title: String!
  maxLength: Int!
  mandatory: Boolean!
}

"Amounts in the store currency, as REST numbers."
type PriceData {
  currency: String!
  price: Float!
  discountedPrice: Float!
  pricePerUnit: Float
  formatted: FormattedPrice!
}

type FormattedPrice {
  price: String!
  discountedPrice: String!
  pricePerUnit: String
}

type Range {
  minValue: Float!
  maxValue: Float!
}

type CostAndProfit {
  itemCost: Float!
  formattedItemCost: String!
  profit: Float!
  formattedProfit: String!
  profitMargin: Float!
}

type Discount {
  "NONE, AMOUNT or PERCENT."
  type: String!
  value: Float!
}

type ProductStock {
  trackInventory: Boolean!
  quantity: Int
  inStock: Boolean!
  "IN_STOCK, OUT_OF_STOCK or PARTIALLY_OUT_OF_STOCK."
  inventoryStatus: String!
}

type Media {
  "The first item."
  mainMedia: MediaItem
  items: [MediaItem!]!
}

type MediaItem {
  id: ID!
  "image or video."
  mediaType: String!
  title: String
  image: Image
  video: Video
  thumbnail: Image
}

type Video {
  files: [Image!]!
}

type Image {
  id: String
  "Absolute."
  url: String
  width: Int
  height: Int
  format: String
  altText: String
}

type ProductOption {
  "drop_down or color."
  optionType: String!
  name: String!
  choices: [Choice!]!
}

type Choice {
  "The colour code of a colour choice, else the shown text."
  value: String!
  description: String!
  media: Media
  inStock: Boolean!
  visible: Boolean!
}

type Variant {
  id: ID!
  "Option name → choice description."
  choices: JSON!
  variant: VariantData!
  stock: VariantStock!
}

type VariantData {
  priceData: PriceData!
  convertedPriceData: PriceData!
  "Merchants only (includeMerchantSpecificData)."
  costAndProfitData: CostAndProfit
  weight: Float
  sku: String
  visible: Boolean!
  productDimensions: Dimensions
  packageDimensions: Dimensions
}

type VariantStock {
  trackQuantity: Boolean!
  quantity: Int
  inStock: Boolean!
}

type PageUrl {
  base: String!
  path: String!
}

type Collection {
  id: ID!
  name: String!
  slug: String!
  visible: Boolean!
  description: String
  media: CollectionMedia
  numberOfProducts: Int!
  "ISO 8601."
  lastUpdated: String!
}

type CollectionMedia {
  mainMedia: CollectionMainMedia
  "Always empty, as on REST."
  items: [MediaItem!]!
}

type CollectionMainMedia {
  image: Image
}

type Cart {
  id: ID!
  lineItems: [LineItem!]!
  buyerNote: String
  buyerInfo: BuyerInfo!
  currency: String!
  conversionCurrency: String!
  paymentCurrency: String!
  buyerLanguage: String!
  siteLanguage: String!
  taxIncludedInPrices: Boolean!
  "KG or LB."
  weightUnit: String!
  subtotal: Price!
  subtotalAfterDiscounts: Price!
  checkoutId: ID
  "Coupons and merchant discounts applied to the cart, as on REST."
  appliedDiscounts: [AppliedDiscount!]!
  "\`{address, contactDetails}\` as set with the REST cart's \`cartInfo\`."
  contactInfo: JSON
  "The shipping option set with the REST cart's \`cartInfo\`."
  selectedShippingOption: ShippingOptionRef
  businessLocationId: ID
  "ISO 8601."
  createdDate: String!
  "ISO 8601."
  updatedDate: String!
  revision: String!
}

"The cart's owner: a visitor or a member."
type BuyerInfo {
  visitorId: ID
  memberId: ID
}

type ShippingOptionRef {
  code: String!
  carrierId: ID
}

"An amount as a decimal string, as the cart's REST wire sends it."
type Price {
  amount: String!
  convertedAmount: String!
  formattedAmount: String!
  formattedConvertedAmount: String!
}

type LineItem {
  id: ID!
  quantity: Int!
  productName: Translatable!
  catalogReference: CatalogReference
  rootCatalogItemId: ID
  url: LineItemUrl
  price: Price!
  fullPrice: Price!
  priceBeforeDiscounts: Price!
  lineItemPrice: Price!
  descriptionLines: [DescriptionLine!]!
  image: Image
  availability: Availability!
  physicalProperties: PhysicalProperties
  itemType: ItemType!
  "FULL_PAYMENT_ONLINE."
  paymentOption: String!
  "Whether the merchant added it (customLineItems) rather than the catalog."
  customLineItem: Boolean!
  priceUndetermined: Boolean!
  fixedQuantity: Boolean!
}

type Totals {
  cart: Cart!
  "Each line priced: its discount and tax."
  calculatedLineItems: [CalculatedLineItem!]!
  priceSummary: PriceSummary!
  taxSummary: TaxSummary!
  shippingInfo: ShippingInfo!
  appliedDiscounts: [AppliedDiscount!]!
  "Why a part could not be priced, e.g. \`{couponCalculationError: {applicationError: {code, description}}}\`."
  calculationErrors: JSON
  "KG or LB."
  weightUnit: String!
  currency: String!
  payNow: PriceSummary!
  payLater: PriceSummary!
  "Memberships (none in the emulator), as on REST."
  membershipOptions: JSON
  "Always empty, as on REST."
  additionalFees: [JSON!]!
  "Lines that cannot be bought as they are; a checkout is refused while there are any."
  violations: [Violation!]!
}

type PriceSummary {
  subtotal: Price!
  shipping: Price!
  tax: Price!
  discount: Price!
  total: Price!
  additionalFees: Price!
}

type CalculatedLineItem {
  lineItemId: ID!
  pricesBreakdown: PricesBreakdown!
  "FULL_PAYMENT_ONLINE."
  paymentOption: String!
  taxableAddress: TaxableAddress!
}

type PricesBreakdown {
  totalPriceAfterTax: Price!
  totalPriceBeforeTax: Price!
  taxDetails: TaxDetails!
  totalDiscount: Price!
  price: Price!
  priceBeforeDiscounts: Price!
  lineItemPrice: Price!
  fullPrice: Price!
}

type TaxDetails {
  taxableAmount: Price!
  "A decimal string, e.g. 0.08875."
  taxRate: String!
  totalTax: Price!
  rateBreakdown: [TaxRate!]
}

type TaxRate {
  name: String!
  rate: String!
  tax: Price!
  jurisdictionType: String
}

type TaxableAddress {
  "SHIPPING, BILLING or BUSINESS."
  addressType: String!
}

type TaxSummary {
  taxableAmount: Price!
  totalTax: Price!
  calculationDetails: TaxCalculationDetails!
}

type TaxCalculationDetails {
  "MANUAL_RATE or NO_TAX_COLLECTED."
  rateType: String!
  manualRateReason: String
}

type ShippingInfo {
  region: Region
  "The option priced in the totals: the one asked for, else the first."
  selectedCarrierServiceOption: SelectedShippingOption
  carrierServiceOptions: [CarrierServiceOptions!]!
}

type Region {
  id: String
  name: String
}

type SelectedShippingOption {
  carrierId: ID
  code: String!
  title: String!
  logistics: Logistics
  cost: ShippingCost!
  "Its charges (a handling fee), each with its share of the discount and tax."
  otherCharges: [SelectedOtherCharge!]!
  "Whether this is the option asked for."
  requestedShippingOption: Boolean
}

type ShippingCost {
  price: Price!
  totalPriceBeforeTax: Price!
  totalPriceAfterTax: Price!
  totalDiscount: Price!
  taxDetails: TaxDetails!
}

type SelectedOtherCharge {
  "HANDLING_FEE, …"
  type: String!
  details: String
  cost: ShippingCost!
}

type OtherCharge {
  "HANDLING_FEE, …"
  type: String!
  price: Price!
  details: String
}

type Logistics {
  deliveryTime: String
  "ISO 8601 dates."
  deliveryTimeSlot: TimeSlot
  instructions: String
  "A pickup's place."
  pickupDetails: PickupDetails
}

type TimeSlot {
  from: String!
  to: String!
}

type PickupDetails {
  address: PickupAddress!
  businessLocation: Boolean!
  "STORE_PICKUP, …"
  pickupMethod: String!
}

type PickupAddress {
  country: String
  subdivision: String
  city: String
  postalCode: String
  addressLine: String
  addressLine2: String
  formattedAddress: String
  geocode: Geocode
}

type Geocode {
  latitude: Float!
  longitude: Float!
}

type CarrierServiceOptions {
  carrierId: ID!
  shippingOptions: [ShippingOption!]!
}

type ShippingOption {
  code: String!
  title: String!
  logistics: Logistics
  cost: ShippingOptionCost!
}

type ShippingOptionCost {
  price: Price!
  "Charges added to the price (a handling fee)."
  otherCharges: [OtherCharge!]!
}

type AppliedDiscount {
  "GLOBAL, SPECIFIC_ITEMS or SHIPPING."
  discountType: String!
  lineItemIds: [ID!]!
  coupon: Coupon
  merchantDiscount: MerchantDiscount
}

type Coupon {
  id: ID!
  code: String!
  name: String
  amount: Price!
}

type MerchantDiscount {
  amount: Price!
  percentage: Float
}

type Violation {
  "ERROR or WARNING."
  severity: String!
  description: String
  "Where a page shows it, as on REST (\`{lineItem: {id, name, suggestedFix}}\`)."
  target: JSON
}

type CheckoutCreated {
  checkoutId: ID!
}

type Translatable {
  original: String!
  translated: String
}

type CatalogReference {
  appId: String!
  catalogItemId: ID!
  options: JSON
}

type LineItemUrl {
  relativePath: String
  url: String
}

type DescriptionLine {
  name: Translatable!
  plainText: Translatable
  colorInfo: ColorInfo
  "PLAIN_TEXT or COLOR."
  lineType: String
}

type ColorInfo {
  original: String!
  translated: String
  code: String
}

type Availability {
  "AVAILABLE, NOT_AVAILABLE, PARTIALLY_AVAILABLE or NOT_FOUND."
  status: String!
  quantityAvailable: Int
}

type PhysicalProperties {
  weight: Float
  sku: String
  shippable: Boolean
}

type ItemType {
  preset: String
  custom: String
}
`;

/** What resolvers get: the emulator, the caller, and the current-cart API as the caller. */
export interface GraphqlContext {
  emu: Emulator;
  identity: Identity;
  /** Calls `…/carts/current{action}` with the caller's credentials; resolves with the REST answer. */
  cart(method: 'GET' | 'POST', action?: string, body?: object): Promise<Record<string, unknown>>;
}

type Resolver<A = any> = GraphQLFieldResolver<unknown, GraphqlContext, A>;

interface QueryArgs {
  filter?: unknown;
  sort?: unknown;
  paging?: { limit?: number | null; offset?: number | null } | null;
}

/** The platform query of a field's arguments; a filter nested past the REST limit is refused alike. */
function platformQuery({ filter, sort, paging }: QueryArgs) {
  if (nestsDeeperThan(filter)) throw tooDeep('filter');
  return {
    ...(filter != null ? { filter } : {}),
    ...(sort != null ? { sort } : {}),
    ...(paging != null
      ? {
          paging: {
            ...(paging.limit != null ? { limit: paging.limit } : {}),
            ...(paging.offset != null ? { offset: paging.offset } : {}),
          },
        }
      : {}),
  };
}

/** The arguments given (GraphQL passes an omitted nullable argument as absent, a `null` as null). */
const given = (a: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(a).filter(([, v]) => v != null));

/** An empty id or slug is refused as REST refuses it (its schemas' `z.string().min(1)`). */
function nonEmpty(args: Record<string, unknown>, field: string) {
  if (args[field] === '')
    throw invalid([
      { field, description: 'must have at least 1 character', violatedRule: 'MIN_LENGTH', data: { min: 1 } },
    ]);
}

const RESOLVERS: Record<string, Record<string, Resolver>> = {
  Query: {
    product: async (_, a: { id: string; includeMerchantSpecificData: boolean }, { emu, identity }) => {
      nonEmpty(a, 'id');
      // By id, as REST GET: a merchant finds a hidden product without asking for hidden ones.
      const { products } = await queryProducts(emu, emu.db, identity, {
        query: { filter: { id: { $eq: a.id } } },
        includeVariants: true,
        includeHiddenProducts: seesHidden(identity),
        includeMerchantSpecificData: a.includeMerchantSpecificData,
      });
      if (!products[0])
        throw notFound('PRODUCT_NOT_FOUND', `Product with id ${JSON.stringify(a.id)} not found`, {
          productId: a.id,
        });
      return products[0];
    },
    products: (
      _,
      a: QueryArgs & { includeHiddenProducts: boolean; includeMerchantSpecificData: boolean },
      { emu, identity },
    ) =>
      queryProducts(emu, emu.db, identity, {
        query: platformQuery(a),
        includeVariants: true,
        includeHiddenProducts: a.includeHiddenProducts,
        includeMerchantSpecificData: a.includeMerchantSpecificData,
      }),
    collection: (_, a: { id?: string | null; slug?: string | null }, { emu, identity }) => {
      if ((a.id == null) === (a.slug == null))
        throw invalid([
          { field: 'id', description: 'or slug is required, not both', violatedRule: 'ONE_OF_ALIGNMENT' },
        ]);
      nonEmpty(a, a.id != null ? 'id' : 'slug');
      return a.id != null
        ? findCollection(emu, emu.db, identity, 'id', a.id)
        : findCollection(emu, emu.db, identity, 'slug', a.slug!);
    },
    collections: (_, a: QueryArgs, { emu, identity }) =>
      queryCollections(emu, emu.db, identity, platformQuery(a)),
    currentCart: async (_, _a, { cart }) => (await cart('GET')).cart,
    estimateCurrentCartTotals: (_, a: Record<string, unknown>, { cart }) =>
      cart('POST', '/estimate-totals', given(a)),
  },
  Mutation: {
    addToCurrentCart: async (_, a: { lineItems: unknown[] }, { cart }) =>
      (await cart('POST', '/add-to-cart', { lineItems: a.lineItems })).cart,
    removeLineItemsFromCurrentCart: async (_, a: { ids: string[] }, { cart }) =>
      (await cart('POST', '/remove-line-items', { lineItemIds: a.ids })).cart,
    updateCurrentCartLineItemQuantity: async (_, a: { lineItems: unknown[] }, { cart }) =>
      (await cart('POST', '/update-line-items-quantity', { lineItems: a.lineItems })).cart,
    createCheckoutFromCurrentCart: (_, a: Record<string, unknown>, { cart }) =>
      cart('POST', '/create-checkout', given(a)),
  },
};

/** The root fields that call the current-cart API, each one a whole cart call (`LIMITS.maxCartFields`). */
export const CART_FIELDS: ReadonlySet<string> = new Set([
  'currentCart',
  'estimateCurrentCartTotals',
  'addToCurrentCart',
  'removeLineItemsFromCurrentCart',
  'updateCurrentCartLineItemQuantity',
  'createCheckoutFromCurrentCart',
]);

/**
 * The executable schema: the SDL with the root resolvers attached. Each first refuses text no
 * storage can hold, as every REST route does (`badTextAt`): the router checks the request's JSON,
 * variables included, but a string escape in the document (`"\u0000"`) is only text once parsed.
 */
export function buildGraphqlSchema() {
  const schema = buildSchema(SDL);
  for (const [typeName, fields] of Object.entries(RESOLVERS)) {
    const type = schema.getType(typeName);
    if (!isObjectType(type)) throw new Error(`The GraphQL schema has no object type ${typeName}`);
    const defined = type.getFields();
    for (const [name, resolve] of Object.entries(fields)) {
      if (!defined[name]) throw new Error(`The GraphQL schema has no field ${typeName}.${name}`);
      defined[name].resolve = (source, args, context, info) => {
        const bad = badTextAt(args);
        if (bad) throw invalid([bad]);
        return resolve(source, args, context, info);
      };
    }
  }
  return schema;
}
