import { randomInt } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import { CAPTCHA_IMAGE, CAPTCHA_LENGTH } from '@meterdesk/contracts';

type Point = readonly [number, number];
type Stroke = readonly Point[];

/** Points along an elliptic arc, angles in degrees (0 points right, 90 down). */
function arc(cx: number, cy: number, rx: number, ry: number, from: number, to: number): Stroke {
  const steps = Math.ceil(Math.abs(to - from) / 15);
  return Array.from({ length: steps + 1 }, (_, i) => {
    const a = ((from + ((to - from) * i) / steps) * Math.PI) / 180;
    return [cx + rx * Math.cos(a), cy + ry * Math.sin(a)] as const;
  });
}

/**
 * A stroke font in a box 14 units tall. The alphabet leaves out every character another one can be
 * read as, once distorted: 0/O/Q/D/G, 1/I/L/J, 5/S, 2/Z, 8/B, U/V/Y, 6/G/9, F (an E with a stroke
 * hidden), P (an R likewise), 7 (a tilted T), and two that people misread once crossed by noise: 4 (an A)
 * and N (an A or a narrow W). Only capitals are drawn; the answer ignores case.
 */
const GLYPHS: Record<string, { width: number; strokes: readonly Stroke[] }> = {
  A: {
    width: 10,
    strokes: [
      [
        [0, 14],
        [5, 0],
        [10, 14],
      ],
      [
        [2, 9],
        [8, 9],
      ],
    ],
  },
  C: { width: 10, strokes: [arc(5.5, 7, 5, 7, -45, -315)] },
  E: {
    width: 9,
    strokes: [
      [
        [9, 0],
        [0, 0],
        [0, 14],
        [9, 14],
      ],
      [
        [0, 7],
        [7, 7],
      ],
    ],
  },
  H: {
    width: 10,
    strokes: [
      [
        [0, 0],
        [0, 14],
      ],
      [
        [10, 0],
        [10, 14],
      ],
      [
        [0, 7],
        [10, 7],
      ],
    ],
  },
  K: {
    width: 10,
    strokes: [
      [
        [0, 0],
        [0, 14],
      ],
      [
        [10, 0],
        [0, 9],
      ],
      [
        [3.5, 6],
        [10, 14],
      ],
    ],
  },
  M: {
    width: 13,
    strokes: [
      [
        [0, 14],
        [0.5, 0],
        [6.5, 11],
        [12.5, 0],
        [13, 14],
      ],
    ],
  },
  R: {
    width: 10,
    strokes: [
      [[0, 14], [0, 0], [5.5, 0], ...arc(5.5, 3.75, 4, 3.75, -90, 90), [0, 7.5]],
      [
        [4.5, 7.5],
        [10, 14],
      ],
    ],
  },
  T: {
    width: 10,
    strokes: [
      [
        [0, 0],
        [10, 0],
      ],
      [
        [5, 0],
        [5, 14],
      ],
    ],
  },
  W: {
    width: 13,
    strokes: [
      [
        [0, 0],
        [3.2, 14],
        [6.5, 4],
        [9.8, 14],
        [13, 0],
      ],
    ],
  },
  X: {
    width: 10,
    strokes: [
      [
        [0, 0],
        [10, 14],
      ],
      [
        [10, 0],
        [0, 14],
      ],
    ],
  },
  '3': { width: 10, strokes: [[...arc(5, 3.6, 4.5, 3.6, -160, 90), ...arc(5, 10.6, 5, 3.4, -90, 160)]] },
};

export const CAPTCHA_ALPHABET = Object.keys(GLYPHS).join('');

const { width: WIDTH, height: HEIGHT } = CAPTCHA_IMAGE;
/** Pixels a font unit spans at scale 1: glyphs about 46 px tall. */
const UNIT = 3.3;

/**
 * The palette. The ink is several dark colours of about the same lightness, laid by position (bands
 * across the image), never by glyph: every glyph is of several colours and shares them with its
 * neighbours and with the noise strokes, so colour separates nothing.
 */
const BACKGROUND = [
  [246, 246, 240],
  [232, 238, 246],
  [246, 234, 228],
  [228, 243, 232],
  [238, 232, 246],
] as const;
const INK = [
  [30, 45, 120],
  [50, 40, 140],
  [20, 65, 130],
  [65, 35, 115],
  [35, 35, 95],
  [25, 80, 120],
  [70, 50, 140],
  [40, 55, 105],
] as const;
const PALETTE = Buffer.from([...BACKGROUND, ...INK].flat());

const rand = (min: number, max: number) => min + (randomInt(1_000_000) / 1_000_000) * (max - min);

class Canvas {
  /** One palette index a pixel. */
  readonly pixels = new Uint8Array(WIDTH * HEIGHT);
  private readonly band = rand(8, 12);
  private readonly angle = rand(0, Math.PI);
  private readonly inkOrder = [...INK.keys()].sort(() => randomInt(3) - 1);

  /** Which ink colour lies at (x, y): bands at a random angle, wavy, a few pixels wide. */
  private inkAt(x: number, y: number): number {
    const along = x * Math.cos(this.angle) + y * Math.sin(this.angle) + 2 * Math.sin(y / 5 + x / 11);
    const k = Math.floor(along / this.band);
    const order = this.inkOrder;
    return BACKGROUND.length + order[((k % order.length) + order.length) % order.length]!;
  }

  /** A thick polyline, every pixel within `width / 2` of it inked. */
  stroke(points: Stroke, width: number): void {
    const r = width / 2;
    for (let s = 1; s < points.length; s++) {
      const [x0, y0] = points[s - 1]!;
      const [x1, y1] = points[s]!;
      const [dx, dy] = [x1 - x0, y1 - y0];
      const lengthSq = dx * dx + dy * dy || 1;
      for (
        let y = Math.max(0, Math.floor(Math.min(y0, y1) - r));
        y <= Math.min(HEIGHT - 1, Math.max(y0, y1) + r);
        y++
      ) {
        for (
          let x = Math.max(0, Math.floor(Math.min(x0, x1) - r));
          x <= Math.min(WIDTH - 1, Math.max(x0, x1) + r);
          x++
        ) {
          const t = Math.max(0, Math.min(1, ((x - x0) * dx + (y - y0) * dy) / lengthSq));
          if ((x - x0 - t * dx) ** 2 + (y - y0 - t * dy) ** 2 <= r * r) this.pixels[y * WIDTH + x] = this.inkAt(x, y);
        }
      }
    }
  }
}

/** The stroke cut into pieces of at most 2 units, so a warp bends it instead of moving its ends. */
function subdivide(stroke: Stroke): Point[] {
  const out: Point[] = [stroke[0]!];
  for (let s = 1; s < stroke.length; s++) {
    const [x0, y0] = stroke[s - 1]!;
    const [x1, y1] = stroke[s]!;
    const steps = Math.max(1, Math.ceil(Math.hypot(x1 - x0, y1 - y0) / 2));
    for (let i = 1; i <= steps; i++) out.push([x0 + ((x1 - x0) * i) / steps, y0 + ((y1 - y0) * i) / steps]);
  }
  return out;
}

/** A random wavy line through the text, in the glyphs' own colours. */
function noiseStroke(canvas: Canvas, fromX: number, toX: number, y: number, amplitude: number, width: number): void {
  const phase = rand(0, Math.PI * 2);
  const wavelength = rand(25, 60);
  const slope = rand(-0.15, 0.15);
  const points: Point[] = [];
  for (let x = fromX; x <= toX; x += 2) {
    points.push([x, y + slope * (x - fromX) + amplitude * Math.sin((x / wavelength) * Math.PI * 2 + phase)]);
  }
  canvas.stroke(points, width);
}

interface Placed {
  ch: string;
  /** Pixels a font unit spans across and down: each glyph its own size and width. */
  unitX: number;
  unitY: number;
  /** Its left edge, and the height of its middle. */
  left: number;
  middle: number;
}

/** Draws one glyph at its place, with its own rotation, shear and wave. */
function drawGlyph(canvas: Canvas, { ch, unitX, unitY, left, middle }: Placed): void {
  const glyph = GLYPHS[ch];
  if (!glyph) return;
  const angle = rand(-0.2, 0.2);
  const shear = rand(-0.2, 0.2);
  const [wave, wavelength, phase] = [rand(1, 2), rand(20, 30), rand(0, Math.PI * 2)];
  const [cos, sin] = [Math.cos(angle), Math.sin(angle)];
  const centre = left + (glyph.width * unitX) / 2;
  const place = ([u, v]: Point): Point => {
    const x = (u - glyph.width / 2) * unitX + shear * (v - 7) * unitY;
    const y = (v - 7) * unitY;
    const [rx, ry] = [x * cos - y * sin, x * sin + y * cos];
    return [
      centre + rx + wave * Math.sin(ry / (wavelength / 6.28) + phase),
      middle + ry + wave * Math.sin(rx / 5 + phase),
    ];
  };
  const width = rand(4.6, 5.6);
  for (const stroke of glyph.strokes) canvas.stroke(subdivide(stroke).map(place), width);
}

/**
 * Where each glyph goes: a random size and width each, every one starting inside the one before (they
 * touch or overlap by a random amount) at a random height, the row shrunk if it would not fit.
 */
function layout(text: string): Placed[] {
  const sized = [...text].map((ch) => {
    const unitY = UNIT * rand(0.85, 1.12);
    return { ch, unitY, unitX: unitY * rand(0.9, 1.35), advance: rand(0.92, 1) };
  });
  const row = sized.reduce((sum, g) => sum + (GLYPHS[g.ch]?.width ?? 0) * g.unitX * g.advance, 0);
  const fit = Math.min(1, (WIDTH - 44) / row);
  let left = (WIDTH - row * fit) / 2 + rand(-6, 6);
  return sized.map(({ ch, unitX, unitY, advance }) => {
    const placed = { ch, unitX: unitX * fit, unitY: unitY * fit, left, middle: HEIGHT / 2 + rand(-7, 7) };
    left += (GLYPHS[ch]?.width ?? 0) * placed.unitX * advance;
    return placed;
  });
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed) >>> 0);
  return Buffer.concat([length, typed, crc]);
}

/**
 * A 4-bit palette PNG (one IDAT, no filtering): at most 16 colours, so the image can never pass a few
 * kilobytes, whatever its noise.
 */
function encodePng(width: number, height: number, indices: Uint8Array, palette: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 4; // bit depth
  header[9] = 3; // colour type: palette
  const stride = Math.ceil(width / 2);
  const raw = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) raw[y * (stride + 1) + 1 + (x >> 1)]! |= indices[y * width + x]! << (x & 1 ? 0 : 4);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('PLTE', palette),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * A raster captcha: the answer exists only as pixels. Large, plain glyphs for people; for a solver
 * that knows this code, glyphs that touch and overlap at random spacing and height, each distorted on
 * its own, coloured by position, and crossed by noise strokes of the same colours, so neither colour
 * nor connectivity cuts the image into glyphs.
 */
export function captchaImage(text: string): Buffer {
  const canvas = new Canvas();
  // Pale specks: texture people look through, which the ink's darkness sets apart.
  for (let i = 0; i < 500; i++) canvas.pixels[randomInt(WIDTH * HEIGHT)] = randomInt(1, BACKGROUND.length);
  const glyphs = layout(text);
  for (const glyph of glyphs) drawGlyph(canvas, glyph);
  const [first, last] = [glyphs[0]?.left ?? WIDTH / 2, glyphs.at(-1)?.left ?? WIDTH / 2];
  // Ends of random length either side, so the ink's extent tells nothing of where the glyphs are.
  const [from, to] = [first - rand(5, 40), last + rand(30, 70)];
  noiseStroke(canvas, from, to, HEIGHT / 2 + rand(-10, 10), rand(4, 8), rand(1.6, 2.2));
  for (let i = 0; i < 2; i++) {
    const x = rand(from, to - 25);
    noiseStroke(canvas, x, x + rand(15, 30), rand(16, HEIGHT - 16), rand(3, 6), rand(1.6, 2.2));
  }
  return encodePng(WIDTH, HEIGHT, canvas.pixels, PALETTE);
}

export function captchaText(length = CAPTCHA_LENGTH): string {
  return Array.from({ length }, () => CAPTCHA_ALPHABET[randomInt(CAPTCHA_ALPHABET.length)]).join('');
}
