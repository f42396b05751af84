import { describe, expect, it } from 'vitest';
import { count, few } from './format.ts';

describe('count', () => {
  it('puts the noun in the singular for one only', () => {
    expect(count(1, 'product')).toBe('1 product');
    expect(count(0, 'product')).toBe('0 products');
    expect(count(2, 'variant')).toBe('2 variants');
    expect(count(3, 'child', 'children')).toBe('3 children');
  });
});

describe('few', () => {
  it('lists up to `max` names in full', () => {
    expect(few([])).toBe('');
    expect(few(['a'])).toBe('a');
    expect(few(['a', 'b', 'c'])).toBe('a, b, c');
    expect(few(['a', 'b', 'c', 'd', 'e'], 5)).toBe('a, b, c, d, e');
  });

  it('lists the first `max` and how many more beyond them', () => {
    expect(few(['a', 'b', 'c', 'd'])).toBe('a, b, c and 1 more');
    expect(few(['a', 'b', 'c', 'd', 'e', 'f', 'g'], 5)).toBe('a, b, c, d, e and 2 more');
    expect(few(['a', 'b'], 1)).toBe('a and 1 more');
  });
});
