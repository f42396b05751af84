/**
 * Generated media: the demo store's images are SVGs drawn from their names, so everything works
 * offline with no binary assets.
 * @module
 */

const PALETTE = [
  '#d8c3a5',
  '#8e8d8a',
  '#e98074',
  '#e85a4f',
  '#a3bcb6',
  '#39603d',
  '#3c403d',
  '#dadbd4',
  '#f2c57c',
  '#7fb685',
];

function hash(s: string) {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

const escapeXml = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** An 800×800 SVG with a colour and pattern derived from `name` and the name as a caption. */
export function placeholderSvg(name: string): string {
  const h = hash(name);
  const bg = PALETTE[h % PALETTE.length];
  const fg = PALETTE[(h >>> 8) % PALETTE.length];
  const r = 120 + (h % 180);
  const label = escapeXml(name.replace(/[-_]+/g, ' '));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="800" height="800" viewBox="0 0 800 800" role="img" aria-label="${label}">
<rect width="800" height="800" fill="${bg}"/>
<circle cx="${300 + (h % 200)}" cy="${300 + ((h >>> 4) % 200)}" r="${r}" fill="${fg}" opacity="0.85"/>
<rect x="0" y="680" width="800" height="120" fill="#00000022"/>
<text x="400" y="755" font-family="system-ui, sans-serif" font-size="44" text-anchor="middle" fill="#fff">${label}</text>
</svg>`;
}
