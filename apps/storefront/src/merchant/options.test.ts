import { OptionType, type Product } from '@shopkit/sdk';
import { describe, expect, it } from 'vitest';
import { formatOptions, parseOptions } from './options.ts';

describe('parseOptions', () => {
  it('reads drop-down and colour options', () => {
    expect(parseOptions('Size: S, M\nColor: Red #C0392B, Blue #2e86de\n').options).toEqual([
      {
        name: 'Size',
        optionType: 'drop_down',
        choices: [
          { description: 'S', value: 'S' },
          { description: 'M', value: 'M' },
        ],
      },
      {
        name: 'Color',
        optionType: 'color',
        choices: [
          { description: 'Red', value: '#c0392b' },
          { description: 'Blue', value: '#2e86de' },
        ],
      },
    ]);
  });

  it('refuses a colour option where some choices have no code, naming them', () => {
    const r = parseOptions('Color: Red #ff0000, Blue, Green');
    expect(r.error).toBe(
      'Color is a colour option (Red has a colour code), so every choice needs one: add a code to Blue, Green.',
    );
  });

  it('refuses codes that are not six hex digits, and lines without choices', () => {
    expect(parseOptions('Color: Red #f00').error).toMatch(/“#f00” is not a colour code/);
    expect(parseOptions('Color: #ff0000').error).toMatch(/needs a name/);
    expect(parseOptions('Size').error).toMatch(/needs a name, a colon and its choices/);
    expect(parseOptions('Size:').error).toMatch(/needs a name, a colon and its choices/);
  });

  it('reads a # that is no colour code as part of a choice name, and reads it back', () => {
    // `Pack #2` was refused as "not a colour code": such a product's options could not be edited.
    const text = 'Pack: Pack #2, Pack #10\nColor: Navy #1 #000080, Red #c0392b';
    const r = parseOptions(text);
    expect(r.error).toBeUndefined();
    expect(r.options[0]).toEqual({
      name: 'Pack',
      optionType: OptionType.drop_down,
      choices: [
        { description: 'Pack #2', value: 'Pack #2' },
        { description: 'Pack #10', value: 'Pack #10' },
      ],
    });
    expect(r.options[1]!.choices![0]).toEqual({ description: 'Navy #1', value: '#000080' });
    expect(formatOptions({ productOptions: r.options } as Product)).toBe(text);
    // On a colour option's line, a # choice must still be a code.
    expect(parseOptions('Color: Red #ff0000, Pack #2').error).toMatch(/“#2” is not a colour code/);
  });

  it('refuses an option or a choice given twice, whatever its case, as the platform does', () => {
    expect(parseOptions('Size: S, M\nsize: L').error).toBe(
      'size is given twice: put all its choices on one line.',
    );
    expect(parseOptions('Size: S, M, s').error).toBe('Size: the choice “s” is given twice.');
    expect(parseOptions('Color: Red #ff0000, Red #00ff00').error).toBe(
      'Color: the choice “Red” is given twice.',
    );
    expect(parseOptions('Size: S, M\nColor: S #ff0000').error).toBeUndefined();
  });

  it('reads back what formatOptions writes', () => {
    const text = 'Size: S, M, L\nColor: White #f4f1ea, Sand #d8c3a5';
    const p = { productOptions: parseOptions(text).options } as Product;
    expect(formatOptions(p)).toBe(text);
  });
});
