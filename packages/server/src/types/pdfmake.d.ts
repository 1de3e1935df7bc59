/**
 * pdfmake 0.3 ships no types, and @types/pdfmake describes the browser build; this is the part of
 * the server build (a singleton) that the PDF export uses.
 */
declare module 'pdfmake' {
  import type { Readable } from 'node:stream';

  interface FontFiles {
    normal: string;
    bold?: string;
    italics?: string;
    bolditalics?: string;
  }

  /** A pdfkit document: rendered, readable once `end()` is called. */
  interface PdfKitDocument extends Readable {
    end(): void;
  }

  interface PdfMake {
    setUrlAccessPolicy(allow: (url: string) => boolean): void;
    setLocalAccessPolicy(allow: (path: string) => boolean): void;
    addFonts(fonts: Record<string, FontFiles>): void;
    createPdf(document: Record<string, unknown>): { getStream(): Promise<PdfKitDocument> };
  }

  const pdfmake: PdfMake;
  export default pdfmake;
}
