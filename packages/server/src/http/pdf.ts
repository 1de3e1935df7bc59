import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ColumnText } from '../i18n/labels';
import type { Download } from './export';

export const PDF_TYPE = 'application/pdf';

// Noto Sans Hans (SIL OFL) from an npm package: the standard PDF fonts have no Chinese glyphs, so
// every text is set in it, Latin included; pdfkit embeds only the glyphs a file uses.
const FONT_DIR = join(dirname(createRequire(import.meta.url).resolve('@embedpdf/fonts-sc')), '..', 'fonts');
const FONT_FILES = {
  normal: join(FONT_DIR, 'NotoSansHans-Regular.otf'),
  bold: join(FONT_DIR, 'NotoSansHans-Bold.otf'),
};
/** The font's PostScript name, which the file names its embedded subsets by. */
export const PDF_FONT = 'NotoSansHans-Regular';
const FAMILY = 'NotoSansHans';

let pdfmakeLoaded: Promise<typeof import('pdfmake').default> | undefined;

/**
 * pdfmake, with pdfkit and its font and image decoders, loaded with the first PDF rather than at
 * the server's start: the heap it holds (~10 MB) would otherwise raise every garbage-collection
 * threshold of a server that never prints (docs/architecture.md, "Imports").
 */
function loadPdfmake() {
  pdfmakeLoaded ??= import('pdfmake').then(({ default: pdfmake }) => {
    // The documents are built from records, never from user-supplied URLs or paths: pdfmake may
    // read the two font files and nothing else.
    pdfmake.setUrlAccessPolicy(() => false);
    pdfmake.setLocalAccessPolicy((path) => path === FONT_FILES.normal || path === FONT_FILES.bold);
    pdfmake.addFonts({ [FAMILY]: { ...FONT_FILES, italics: FONT_FILES.normal, bolditalics: FONT_FILES.bold } });
    return pdfmake;
  });
  return pdfmakeLoaded;
}

/** A4 in points, and the margins around the table. */
const A4 = { long: 841.89, short: 595.28 };
const MARGIN = 28;
/** Up to this many columns fit portrait at the largest text size. */
const PORTRAIT_COLUMNS = 6;
/** Average advance of a Latin character as a share of the font size (Noto Sans). */
const CHAR_WIDTH = 0.55;

function layoutFor(columnCount: number) {
  const landscape = columnCount > PORTRAIT_COLUMNS;
  const fontSize = columnCount <= 8 ? 9 : columnCount <= 16 ? 8 : 6.5;
  const usable = (landscape ? A4.long : A4.short) - 2 * MARGIN;
  // Cell padding (4 pt each side in pdfmake's default layout) leaves this much for the text.
  const charsPerLine = Math.max(1, Math.floor((usable / columnCount - 8) / (fontSize * CHAR_WIDTH)));
  return { landscape, fontSize, charsPerLine };
}

/**
 * A cell's text. pdfmake never narrows a column below its longest word, so a long word (a serial
 * number, an e-mail address) would push the table off the page; such a cell may break anywhere.
 */
function cell(text: string | number, charsPerLine: number, bold = false) {
  const value = String(text);
  const longWord = value.split(/\s+/).some((word) => word.length > charsPerLine);
  return { text: value, ...(longWord ? { wordBreak: 'break-all' } : {}), ...(bold ? { bold: true } : {}) };
}

/**
 * A table of rows on A4 paper (landscape when the columns do not fit portrait), with a title, the
 * header repeated on every page and page numbers. A PDF is laid out whole before it is written, so
 * at most `maxRows` rows are read; when there were more, `moreRows` says so under the title.
 */
export async function renderPdf<R>(options: {
  filename: string;
  title: string;
  subtitle: string;
  columns: ColumnText<R>[];
  chunks: AsyncIterable<R[]>;
  maxRows: number;
  moreRows: string;
}): Promise<Download> {
  const { columns, maxRows } = options;
  const { landscape, fontSize, charsPerLine } = layoutFor(columns.length);
  const body = [columns.map((c) => cell(c.title, charsPerLine, true))];
  let more = false;
  for await (const rows of options.chunks) {
    for (const row of rows) {
      if (body.length > maxRows) {
        more = true;
        break;
      }
      body.push(columns.map((c) => cell(c.text(row), charsPerLine)));
    }
    if (more) break;
  }
  const pdfmake = await loadPdfmake();
  const document = await pdfmake
    .createPdf({
      pageSize: 'A4',
      pageOrientation: landscape ? 'landscape' : 'portrait',
      pageMargins: [MARGIN, MARGIN, MARGIN, MARGIN + 8],
      info: { title: options.title },
      defaultStyle: { font: FAMILY, fontSize },
      footer: (page: number, pages: number) => ({
        text: `${page} / ${pages}`,
        alignment: 'center',
        fontSize: 8,
        color: '#666666',
      }),
      content: [
        { text: options.title, bold: true, fontSize: 14 },
        { text: options.subtitle, fontSize: 8, color: '#666666', margin: [0, 2, 0, more ? 2 : 8] },
        ...(more ? [{ text: options.moreRows, fontSize: 8, color: '#ad4e00', margin: [0, 0, 0, 8] }] : []),
        {
          table: { headerRows: 1, widths: columns.map(() => '*'), body },
          layout: {
            fillColor: (row: number) => (row === 0 ? '#f0f0f0' : null),
            hLineColor: () => '#bfbfbf',
            vLineColor: () => '#bfbfbf',
          },
        },
      ],
    })
    .getStream();
  document.end();
  return { filename: options.filename, contentType: PDF_TYPE, body: document };
}
