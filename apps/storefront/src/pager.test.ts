import { describe, expect, it } from 'vitest';
import { pager } from './pager.ts';

describe('pager', () => {
  it('counts pages from the total', () => {
    expect(pager({ total: 17 }, 1, 8, 8)).toEqual({
      label: '17 products',
      pages: 3,
      hasNext: true,
      beyond: false,
    });
    expect(pager({ total: 17 }, 3, 8, 1)).toEqual({
      label: '17 products',
      pages: 3,
      hasNext: false,
      beyond: false,
    });
    expect(pager({ total: 1 }, 1, 8, 1).label).toBe('1 product');
    expect(pager({ total: 17 }, 5, 8, 0)).toMatchObject({ beyond: true, hasNext: false });
    expect(pager({ total: 0 }, 1, 8, 0)).toMatchObject({ pages: 1, beyond: false, hasNext: false });
  });

  it('shows no page count when the platform has too many to count (spec 9)', () => {
    const meta = { total: 100_000, tooManyToCount: true };
    expect(pager(meta, 1, 8, 8)).toEqual({
      label: 'More than 100000 products',
      hasNext: true,
      beyond: false,
    });
    expect(pager(meta, 40, 8, 3)).toEqual({
      label: 'More than 100000 products',
      hasNext: false,
      beyond: false,
    });
    expect(pager(meta, 20_000, 8, 0)).toMatchObject({ hasNext: false, beyond: true });
  });
});
