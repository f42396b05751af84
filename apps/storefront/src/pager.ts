/**
 * What a listing's pager shows for one page of a product query (spec 9: "too many to count" hides
 * the total count and the pages): the count's words, the number of pages when known, whether a
 * next page may exist, and whether the page asked for lies past the end.
 */
export interface Pager {
  /** `12 products`, or `More than 100000 products` when the platform did not count them all. */
  label: string;
  /** Pages in all; `undefined` when the total is hidden. */
  pages?: number;
  hasNext: boolean;
  /** The page asked for holds nothing and lies past the last (or, uncounted, past page 1). */
  beyond: boolean;
}

export function pager(
  metadata: { total?: number; tooManyToCount?: boolean } | undefined,
  page: number,
  pageSize: number,
  itemsOnPage: number,
): Pager {
  const total = metadata?.total ?? 0;
  if (metadata?.tooManyToCount)
    return {
      label: `More than ${total} products`,
      hasNext: itemsOnPage === pageSize,
      beyond: itemsOnPage === 0 && page > 1,
    };
  const pages = Math.max(1, Math.ceil(total / pageSize));
  return {
    label: `${total} ${total === 1 ? 'product' : 'products'}`,
    pages,
    hasNext: page < pages,
    beyond: itemsOnPage === 0 && page > pages,
  };
}
