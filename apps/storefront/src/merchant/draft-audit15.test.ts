import { ValidationError } from '@shopkit/sdk';
import { describe, expect, it } from 'vitest';
import { refusedFields, toDraft } from './draft.ts';

const refused = (field: string, description: string) =>
  new ValidationError([{ field, description }], { status: 400 });

describe('refusedFields (a choice refused)', () => {
  const sent = { ...toDraft(), options: 'Size: S, Extra extra large\nColor: Red #c0392b, Blue #2e86de' };

  it('names the choice the platform refused, once (it said “Size: choices.description must …”, then the same of choices.value)', () => {
    const e = new ValidationError(
      ['description', 'value'].map((part) => ({
        field: `product.productOptions[0].choices[1].${part}`,
        description: 'must have at most 50 characters',
      })),
      { status: 400 },
    );
    expect(refusedFields(e, sent)).toEqual({
      options: 'Size: the choice “Extra extra large” must have at most 50 characters.',
    });
  });

  it('names the choice whose colour code the platform refused', () => {
    const e = refused('product.productOptions[1].choices[0].value', 'must be a colour code such as #1a2b3c');
    expect(refusedFields(e, sent)).toEqual({
      options: 'Color: the colour code of the choice “Red” must be a colour code such as #1a2b3c.',
    });
  });
});
