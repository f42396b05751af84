/**
 * The console's text form of product options: one option per line, `Name: choice, choice`. A
 * choice may end in a colour code (`Red #c0392b`). An option is a colour option when any of its
 * choices has a code, and then every choice must have one: a code is never dropped silently, and
 * no colour is made up for a choice without one.
 * @module
 */
import { OptionType, type Product, type ProductInput } from '@shopkit/sdk';

export type OptionsInput = NonNullable<ProductInput['productOptions']>;

const HEX = /^#[0-9a-f]{6}$/i;

/**
 * Reads the options text; `error` is a sentence for the merchant when a line cannot be used.
 * @example parseOptions('Size: S, M\nColor: Red #c0392b, Blue #2e86de').options.length // 2
 */
export function parseOptions(text: string): { options: OptionsInput; error?: string } {
  const options: OptionsInput = [];
  // Names and choices are compared without case, as the platform (the emulator) does: it refuses
  // `Size` twice, or `S, s`. Said here, before a question about the variants the save would delete.
  const names = new Set<string>();
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (!line) continue;
    const [rawName, rest] = line.split(/:(.*)/s) as [string, string?];
    const name = rawName.trim();
    const parts = (rest ?? '')
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean);
    if (!name || rest === undefined || parts.length === 0)
      return { options, error: `“${line}” needs a name, a colon and its choices, such as Size: S, M, L.` };
    if (names.has(name.toLowerCase()))
      return { options, error: `${name} is given twice: put all its choices on one line.` };
    names.add(name.toLowerCase());
    const choices: { description: string; value?: string }[] = [];
    // A last word with `#` is a colour code when it looks like one (three or more hex digits) or
    // another choice of the line has one; else it is part of the name: `Pack #2` was refused as "not
    // a colour code", and such a product's options could not be edited here.
    const ending = (part: string) => /^(.*?)\s*(#\S*)$/.exec(part);
    const colourLine = parts.some((p) => HEX.test(ending(p)?.[2] ?? ''));
    for (const part of parts) {
      const m = ending(part);
      if (!m || !(colourLine || /^#[0-9a-f]{3,}$/i.test(m[2]!))) {
        choices.push({ description: part });
        continue;
      }
      if (!HEX.test(m[2]!))
        return {
          options,
          error: `${name}: “${m[2]}” is not a colour code; use six digits, such as #c0392b.`,
        };
      if (!m[1]) return { options, error: `${name}: the colour ${m[2]} needs a name before it.` };
      choices.push({ description: m[1], value: m[2]!.toLowerCase() });
    }
    const twice = choices.find((c, i) =>
      choices.slice(0, i).some((d) => d.description.toLowerCase() === c.description.toLowerCase()),
    );
    if (twice) return { options, error: `${name}: the choice “${twice.description}” is given twice.` };
    const coloured = choices.filter((c) => c.value !== undefined);
    if (coloured.length === 0) {
      options.push({
        name,
        optionType: OptionType.drop_down,
        choices: choices.map((c) => ({ ...c, value: c.description })),
      });
      continue;
    }
    const missing = choices.filter((c) => c.value === undefined).map((c) => c.description);
    if (missing.length)
      return {
        options,
        error: `${name} is a colour option (${coloured[0]!.description} has a colour code), so every choice needs one: add a code to ${missing.join(', ')}.`,
      };
    options.push({ name, optionType: OptionType.color, choices });
  }
  return { options };
}

/** The text form of a product's options (`parseOptions` reads it back to the same options). */
export const formatOptions = (p?: Product) =>
  (p?.productOptions ?? [])
    .map(
      (o) =>
        `${o.name}: ${(o.choices ?? []).map((c) => (o.optionType === OptionType.color ? `${c.description} ${c.value}` : c.description)).join(', ')}`,
    )
    .join('\n');
