import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The text poppler's pdftotext reads from a PDF, as a viewer's copy and search would. */
export function pdfText(pdf: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'pdf-'));
  const file = join(dir, 'export.pdf');
  writeFileSync(file, pdf);
  try {
    return execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-']).toString('utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
