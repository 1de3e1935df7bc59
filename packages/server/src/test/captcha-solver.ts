import { decodePng, type RgbImage } from './png';

/**
 * The attack issue 16 measured, rebuilt to hold the captcha to account: an offline solver that knows
 * the generator's code. It splits the ink from the background, cuts it into glyphs in three ways
 * (by exact colour and connectivity, by connectivity alone, by equal columns), matches each piece
 * against templates the generator itself drew for every character, and keeps the cut whose string
 * scores best.
 */

const GRID = 16;

/** Pixel indices of one piece of ink. */
type Piece = number[];
type Cut = (image: Ink) => Piece[];

interface Ink extends RgbImage {
  /** True where a pixel is darker than the background (Otsu's threshold on luminance). */
  dark: Uint8Array;
}

function ink(image: RgbImage): Ink {
  const luminance = new Uint8Array(image.width * image.height);
  const histogram = new Array<number>(256).fill(0);
  for (let i = 0; i < luminance.length; i++) {
    const [r, g, b] = [image.rgb[i * 3]!, image.rgb[i * 3 + 1]!, image.rgb[i * 3 + 2]!];
    luminance[i] = Math.round(0.299 * r + 0.587 * g + 0.114 * b);
    histogram[luminance[i]!]!++;
  }
  const total = luminance.length;
  const sum = histogram.reduce((acc, n, level) => acc + n * level, 0);
  let [best, threshold, below, belowSum] = [-1, 0, 0, 0];
  for (let level = 0; level < 256; level++) {
    below += histogram[level]!;
    belowSum += histogram[level]! * level;
    const above = total - below;
    if (below === 0 || above === 0) continue;
    const between = below * above * (belowSum / below - (sum - belowSum) / above) ** 2;
    if (between > best) [best, threshold] = [between, level];
  }
  return { ...image, dark: luminance.map((l) => (l <= threshold ? 1 : 0)) };
}

/** 8-connected components of the dark pixels. */
function components(image: Ink): Piece[] {
  const { width, height, dark } = image;
  const seen = new Uint8Array(dark.length);
  const pieces: Piece[] = [];
  for (let start = 0; start < dark.length; start++) {
    if (!dark[start] || seen[start]) continue;
    const piece = [start];
    seen[start] = 1;
    for (let k = 0; k < piece.length; k++) {
      const at = piece[k]!;
      const [x, y] = [at % width, Math.floor(at / width)];
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const [nx, ny] = [x + dx, y + dy];
          const next = ny * width + nx;
          if (nx < 0 || ny < 0 || nx >= width || ny >= height || !dark[next] || seen[next]) continue;
          seen[next] = 1;
          piece.push(next);
        }
      }
    }
    pieces.push(piece);
  }
  return pieces;
}

/** The dark pixels of each exact colour, wherever they are (noise lines cut a glyph in parts). */
function colours(image: Ink): Piece[] {
  const byColour = new Map<number, Piece>();
  image.dark.forEach((d, at) => {
    if (!d) return;
    const key = image.rgb.readUIntBE(at * 3, 3);
    const piece = byColour.get(key);
    if (piece) piece.push(at);
    else byColour.set(key, [at]);
  });
  return [...byColour.values()];
}

const CUTS: Record<string, Cut> = {
  colour: colours,
  connected: components,
  columns: (image) => [Array.from(image.dark.keys()).filter((at) => image.dark[at])],
};

interface Span {
  piece: Piece;
  left: number;
  top: number;
  width: number;
  height: number;
}

function span(image: Ink, piece: Piece): Span {
  let [left, top, right, bottom] = [image.width, image.height, 0, 0];
  for (const at of piece) {
    const [x, y] = [at % image.width, Math.floor(at / image.width)];
    [left, top, right, bottom] = [Math.min(left, x), Math.min(top, y), Math.max(right, x), Math.max(bottom, y)];
  }
  return { piece, left, top, width: right - left + 1, height: bottom - top + 1 };
}

/**
 * Exactly `count` pieces, left to right: specks, thin lines and the smallest pieces go; when too few
 * are left, the widest are cut into equal columns, as many as their width suggests.
 */
function fit(image: Ink, pieces: Piece[], count: number): Span[] {
  const spans = pieces
    .filter((p) => p.length >= image.height / 2)
    .map((p) => ({ ...span(image, p), parts: 1 }))
    .filter((s) => s.piece.length >= 0.1 * s.width * s.height)
    .sort((a, b) => b.piece.length - a.piece.length)
    .slice(0, count);
  if (spans.length === 0) return [];
  for (let missing = count - spans.length; missing > 0; missing--) {
    const widest = spans.reduce((a, b) => (b.width / b.parts > a.width / a.parts ? b : a));
    widest.parts++;
  }
  return spans
    .flatMap(({ piece, left, width, parts }) =>
      Array.from({ length: parts }, (_, k) =>
        piece.filter((at) => Math.floor((((at % image.width) - left) * parts) / width) === k),
      ),
    )
    .filter((p) => p.length > 0)
    .map((p) => span(image, p))
    .sort((a, b) => a.left - b.left);
}

/** The piece scaled into a GRID×GRID square (aspect kept, centred), each cell the share of ink. */
function normalise(image: Ink, { piece, left, top, width, height }: Span): Float64Array {
  const side = Math.max(width, height);
  const [offX, offY] = [(side - width) / 2, (side - height) / 2];
  const grid = new Float64Array(GRID * GRID);
  for (const at of piece) {
    const gx = Math.floor((((at % image.width) - left + offX) * GRID) / side);
    const gy = Math.floor(((Math.floor(at / image.width) - top + offY) * GRID) / side);
    grid[gy * GRID + gx]!++;
  }
  // Spread each cell over its neighbours: a stroke a cell away from the template's still counts.
  const soft = new Float64Array(GRID * GRID);
  for (let y = 0; y < GRID; y++) {
    for (let x = 0; x < GRID; x++) {
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const [nx, ny] = [x + dx, y + dy];
          if (nx >= 0 && ny >= 0 && nx < GRID && ny < GRID)
            soft[y * GRID + x]! += grid[ny * GRID + nx]! / (1 + Math.abs(dx) + Math.abs(dy));
        }
      }
    }
  }
  const norm = Math.sqrt(soft.reduce((acc, v) => acc + v * v, 0)) || 1;
  return soft.map((v) => v / norm);
}

function cosine(a: Float64Array, b: Float64Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

export interface TemplateSolver {
  /** The best-scoring string of `length` characters the solver reads from the PNG. */
  read(png: Buffer, length: number): string;
}

/**
 * Templates of every character of `alphabet`, `samples` of each, drawn by `draw` (the generator's
 * own image function given that one character) and cut the way the solver cuts.
 */
export function templateSolver(alphabet: string, draw: (text: string) => Buffer, samples: number): TemplateSolver {
  const templates = Object.fromEntries(
    Object.entries(CUTS).map(([name, cut]) => [
      name,
      [...alphabet].flatMap((ch) =>
        Array.from({ length: samples }, () => {
          const image = ink(decodePng(draw(ch)));
          const [piece] = fit(image, cut(image), 1);
          return piece ? [{ ch, grid: normalise(image, piece) }] : [];
        }).flat(),
      ),
    ]),
  );
  return {
    read(png, length) {
      const image = ink(decodePng(png));
      let best = { text: '', score: -1 };
      for (const [name, cut] of Object.entries(CUTS)) {
        const pieces = fit(image, cut(image), length);
        if (pieces.length !== length) continue;
        let [text, score] = ['', 0];
        for (const piece of pieces) {
          const grid = normalise(image, piece);
          const match = (templates[name] ?? []).reduce(
            (top, t) => {
              const s = cosine(grid, t.grid);
              return s > top.s ? { ch: t.ch, s } : top;
            },
            { ch: '?', s: -1 },
          );
          text += match.ch;
          score += match.s;
        }
        if (score > best.score) best = { text, score };
      }
      return best.text;
    },
  };
}
