/**
 * The fifteenth audit of product media, as a merchant over raw HTTP on each storage: a product
 * video's `thumbnail` (and its `stillFrameMediaId`) named the `.mp4` itself, no image a storefront
 * could show as a poster, while its store variant's poster was an image; and a PATCH that removed
 * every option of a product left `manageVariants` true over the one fresh variant, where
 * `DELETE …/options` turns it off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEmulator, type TestEmulator, testBackends } from '../src/testing.ts';
import { jsonCalls } from './http.ts';

const W = '/stores/v1';
const R = '/stores-reader/v1';

describe.each(testBackends())('media audit 15 (%s)', (backend) => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator(backend);
  });
  afterAll(() => emu?.stop());
  const { owner } = jsonCalls(() => emu);
  const read = async (id: string) => (await owner('GET', `${R}/products/${id}`)).body.product;
  async function product(name: string, extra: object = {}) {
    const created = await owner('POST', `${W}/products`, {
      product: { name, productType: 'physical', priceData: { price: 20 }, ...extra },
    });
    expect(created.status).toBe(200);
    return created.body.product.id as string;
  }
  const colours = { name: 'Colour', choices: [{ description: 'Red' }, { description: 'Blue' }] };

  it('gives a video an image for its thumbnail, the same in every read, that /media serves as an image', async () => {
    const id = await product('Audit15 video', { visible: true, productOptions: [colours] });
    const added = await owner('POST', `${W}/products/${id}/media`, {
      media: [
        { mediaId: 'audit15-clip.mp4', choice: { option: 'Colour', choice: 'Red' } },
        { url: 'https://videos.example.test/a/b.mp4' },
      ],
    });
    expect(added.status).toBe(200);
    const items = (await read(id)).media.items as any[];
    expect(items.map((m) => m.mediaType)).toEqual(['video', 'video']);
    for (const m of items) {
      // The video file is the `.mp4`; its thumbnail is an image of its own, not the video.
      expect(m.video.files[0].url).toMatch(/\.mp4$/);
      expect(m.thumbnail.url).not.toMatch(/\.mp4$/);
      expect(m.thumbnail.format).toBe('svg');
      expect(m.video.stillFrameMediaId).toBe(m.thumbnail.url.split('/').pop());
      const res = await fetch(m.thumbnail.url, { redirect: 'manual' });
      expect([res.status, res.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
      await res.arrayBuffer();
    }
    const [clip, outside] = items;
    expect(clip.thumbnail.url).toBe(`${emu.url}/media/audit15-clip-poster.svg`);
    expect(outside.thumbnail.url).toBe(`${emu.url}/media/${outside.id}-poster.svg`);

    // Platformized queries carry the same.
    const queried = await owner('POST', `${R}/products/query-platformized`, { query: { filter: { id } } });
    expect(queried.body.products[0].media.items).toEqual(items);

    // The store variant with that video names the same image as its poster.
    const red = (await read(id)).variants.find((v: any) => v.choices.Colour === 'Red').id as string;
    const variant = await owner('GET', `${R}/variants/${id}-${red}`);
    expect(variant.status).toBe(200);
    expect(variant.body.variant.media.video.posters[0].url).toBe(clip.thumbnail.url);

    // GraphQL reads the product's media as REST does.
    const gql = await owner('POST', '/graphql/alpha', {
      query: `{ product(id: "${id}") { media { items { thumbnail { url format } video { files { url } } } } } }`,
    });
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.product.media.items[0]).toEqual({
      thumbnail: { url: clip.thumbnail.url, format: 'svg' },
      video: { files: [{ url: clip.video.files[0].url }] },
    });
  });

  it("a video id of the longest length: its store variant's poster is one /media serves", async () => {
    // The poster was named `<video id>-poster.svg`: past the 200 characters of a media id, a 404.
    const id = await product('Audit15 long video', { visible: true, productOptions: [colours] });
    const long = `${'v'.repeat(196)}.mp4`;
    const added = await owner('POST', `${W}/products/${id}/media`, {
      media: [{ mediaId: long, choice: { option: 'Colour', choice: 'Blue' } }],
    });
    expect(added.status).toBe(200);
    const blue = (await read(id)).variants.find((v: any) => v.choices.Colour === 'Blue').id as string;
    const variant = await owner('GET', `${R}/variants/${id}-${blue}`);
    const res = await fetch(variant.body.variant.media.video.posters[0].url);
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
    await res.arrayBuffer();
  });

  it('removing every option by PATCH turns manageVariants off, as DELETE …/options does', async () => {
    const byPatch = await product('Audit15 options by PATCH', { productOptions: [colours] });
    const byDelete = await product('Audit15 options by DELETE', { productOptions: [colours] });
    for (const id of [byPatch, byDelete]) {
      const v = (await read(id)).variants[0].id;
      const own = await owner('PATCH', `${W}/products/${id}/variants`, {
        variants: [{ variantIds: [v], price: 30 }],
      });
      expect(own.status).toBe(200);
      expect((await read(id)).manageVariants).toBe(true);
    }
    expect(
      (await owner('PATCH', `${W}/products/${byPatch}`, { product: { id: byPatch, productOptions: [] } }))
        .status,
    ).toBe(200);
    expect((await owner('DELETE', `${W}/products/${byDelete}/options`)).status).toBe(200);
    const [patched, deleted] = [await read(byPatch), await read(byDelete)];
    const shape = (p: any) => ({
      manageVariants: p.manageVariants,
      productOptions: p.productOptions,
      priceRange: p.priceRange,
      variants: p.variants.length,
    });
    expect(shape(patched)).toEqual(shape(deleted));
    expect(patched.manageVariants).toBe(false);
    // Sent false with the options removed, it is taken: the variants with their own prices go too.
    const off = await product('Audit15 options off', { productOptions: [colours] });
    const offVariant = (await read(off)).variants[0].id;
    await owner('PATCH', `${W}/products/${off}/variants`, {
      variants: [{ variantIds: [offVariant], price: 30 }],
    });
    const both = await owner('PATCH', `${W}/products/${off}`, {
      product: { id: off, productOptions: [], manageVariants: false },
    });
    expect(both.status).toBe(200);
    expect(shape(await read(off))).toEqual(shape(deleted));
    // Said in the same PATCH, the flag is the caller's.
    const kept = await product('Audit15 options kept managed', {
      productOptions: [colours],
      manageVariants: true,
    });
    const res = await owner('PATCH', `${W}/products/${kept}`, {
      product: { id: kept, productOptions: [], manageVariants: true },
    });
    expect(res.status).toBe(200);
    expect((await read(kept)).manageVariants).toBe(true);
  });
});
