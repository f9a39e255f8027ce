import sharp from 'sharp';

/** mulberry32, so every scene is the same on every machine. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A synthetic "photo" with its own palette: a patterned background (stripes or checks at a
 * random angle and scale) and a handful of large coloured and patterned
 * shapes, all drawn from the seed. Rendered by sharp's SVG loader.
 */
export async function renderScene(
  seed: number,
  options: { hue?: number; width?: number; height?: number } = {},
): Promise<Buffer> {
  const { width = 320, height = 240 } = options;
  const r = prng(seed);
  // Each scene has its own palette around a base hue, like a photo's
  // dominant colours; content, not just clutter, tells scenes apart.
  const hue = options.hue ?? r() * 360;
  const color = () =>
    `hsl(${Math.floor(hue + (r() - 0.5) * 70 + 360) % 360},${Math.floor(
      35 + r() * 65,
    )}%,${Math.floor(15 + r() * 70)}%)`;
  const patterns: string[] = [];
  const pattern = (id: string) => {
    const size = 16 + r() * 40;
    const body =
      r() < 0.5
        ? `<rect width="${size}" height="${size}" fill="${color()}"/><rect width="${
            size / 2
          }" height="${size}" fill="${color()}"/>`
        : `<rect width="${size}" height="${size}" fill="${color()}"/><rect width="${
            size / 2
          }" height="${size / 2}" fill="${color()}"/><rect x="${size / 2}" y="${
            size / 2
          }" width="${size / 2}" height="${size / 2}" fill="${color()}"/>`;
    patterns.push(
      `<pattern id="${id}" width="${size}" height="${size}" patternUnits="userSpaceOnUse" patternTransform="rotate(${
        r() * 180
      })">${body}</pattern>`,
    );
    return `url(#${id})`;
  };
  const shapes: string[] = [
    `<rect width="100%" height="100%" fill="${pattern('bg')}"/>`,
  ];
  const count = 4 + Math.floor(r() * 4);
  for (let i = 0; i < count; i++) {
    const x = r() * width;
    const y = r() * height;
    const s = 40 + r() * 100;
    const fill = r() < 0.4 ? pattern(`p${i}`) : color();
    switch (Math.floor(r() * 3)) {
      case 0:
        shapes.push(
          `<circle cx="${x}" cy="${y}" r="${s / 2}" fill="${fill}"/>`,
        );
        break;
      case 1:
        shapes.push(
          `<rect x="${x - s / 2}" y="${y - s / 2}" width="${s}" height="${
            s * (0.5 + r())
          }" fill="${fill}" transform="rotate(${r() * 90} ${x} ${y})"/>`,
        );
        break;
      default:
        shapes.push(
          `<polygon points="${x},${y - s / 2} ${x + s / 2},${y + s / 2} ${
            x - s / 2
          },${y + s / 2}" fill="${fill}"/>`,
        );
    }
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
  <defs>${patterns.join('')}</defs>
  ${shapes.join('\n  ')}
</svg>`;
  // A slight blur, like camera optics, so content is not all aliased edges.
  return sharp(Buffer.from(svg)).blur(2.5).jpeg({ quality: 92 }).toBuffer();
}

export interface Variant {
  kind: string;
  image: Buffer;
}

/** Near-duplicates of an image: crops, a mirror image and rescales. */
export async function nearDuplicates(image: Buffer): Promise<Variant[]> {
  const { width, height } = await sharp(image).metadata();
  const w = width!;
  const h = height!;
  const crop = (left: number, top: number, cw: number, ch: number) =>
    sharp(image)
      .extract({ left, top, width: cw, height: ch })
      .jpeg({ quality: 90 })
      .toBuffer();
  return [
    {
      kind: 'center-crop-90%',
      image: await crop(
        Math.round(w * 0.05),
        Math.round(h * 0.05),
        Math.round(w * 0.9),
        Math.round(h * 0.9),
      ),
    },
    {
      kind: 'corner-crop-92%',
      image: await crop(0, 0, Math.round(w * 0.92), Math.round(h * 0.92)),
    },
    {
      kind: 'horizontal-flip',
      image: await sharp(image).flop().jpeg({ quality: 90 }).toBuffer(),
    },
    {
      kind: 'downscale-70%',
      image: await sharp(image)
        .resize(Math.round(w * 0.7), Math.round(h * 0.7))
        .jpeg({ quality: 85 })
        .toBuffer(),
    },
    {
      kind: 'upscale-150%-png',
      image: await sharp(image)
        .resize(Math.round(w * 1.5), Math.round(h * 1.5))
        .png()
        .toBuffer(),
    },
  ];
}
