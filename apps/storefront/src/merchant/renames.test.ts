/**
 * The console's question before a save that deletes variants follows the emulator's rename rule:
 * a renamed option or choice keeps its variants, so it is not announced as deleting them.
 */
import type { Product } from '@shopkit/sdk';
import { expect, it } from 'vitest';
import { droppedVariants } from './draft.ts';
import { parseOptions } from './options.ts';

const shirt = {
  id: 'p',
  name: 'Shirt',
  productOptions: [
    {
      name: 'Size',
      optionType: 'drop_down',
      choices: ['S', 'M', 'L'].map((d) => ({ value: d, description: d })),
    },
    {
      name: 'Color',
      optionType: 'color',
      choices: [
        { value: '#ff0000', description: 'Red' },
        { value: '#0000ff', description: 'Blue' },
      ],
    },
  ],
  variants: ['S', 'M', 'L'].flatMap((size) =>
    ['Red', 'Blue'].map((color) => ({ id: `${size}-${color}`, choices: { Size: size, Color: color } })),
  ),
} as unknown as Product;

const dropped = (text: string) => {
  const { options, error } = parseOptions(text);
  expect(error).toBeUndefined();
  return droppedVariants(shirt, options)
    .map((v) => v.id)
    .sort();
};

it('keeps every variant when a choice is renamed in place', () => {
  expect(dropped('Size: S, M, XL\nColor: Red #ff0000, Blue #0000ff')).toEqual([]);
});

it('keeps every variant when an option is renamed in place', () => {
  expect(dropped('Fit: S, M, L\nColor: Red #ff0000, Blue #0000ff')).toEqual([]);
});

it('follows a colour by its code when it is renamed and moved', () => {
  expect(dropped('Size: S, M, L\nColor: Navy #0000ff, Crimson #ff0000')).toEqual([]);
});

it("drops only a removed choice's variants, and a new choice makes new ones", () => {
  // M is removed; XL is new (L keeps its name, so XL is not read as L renamed).
  expect(dropped('Size: S, L, XL\nColor: Red #ff0000, Blue #0000ff')).toEqual(['M-Blue', 'M-Red']);
});

it('drops every variant when an option is added or removed', () => {
  expect(dropped('Size: S, M, L')).toHaveLength(6);
  expect(dropped('Size: S, M, L\nColor: Red #ff0000, Blue #0000ff\nSleeve: Short, Long')).toHaveLength(6);
});
