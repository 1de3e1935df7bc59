import { z } from 'zod';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';

/** An uploaded workbook may weigh this much… */
export const MAX_IMPORT_BYTES = 20 * 1024 * 1024;
/** …unpack to this much at most (a zip bomb is refused before it is read)… */
export const MAX_IMPORT_UNPACKED_BYTES = 300 * 1024 * 1024;
/** …and hold this many data rows. */
export const MAX_IMPORT_ROWS = 200_000;
/** An answer lists this many bad rows; the count says how many there were. */
export const MAX_IMPORT_ERRORS_LISTED = 1000;

export const IMPORT_STATES = ['queued', 'reading', 'checking', 'writing', 'done', 'failed'] as const;

/** One bad cell or row (spec §8): its Excel line, column, message key and what exactly was wrong. */
export const ImportErrorSchema = z.object({
  line: z.number().int().describe('Excel row number (the header is line 1)'),
  column: z
    .string()
    .describe(
      "The column's header as the file wrote it (a key, or a label in either language); the template's header when the file lacks the column; empty for a whole-row problem",
    ),
  columnLetter: z.string().describe("The column's letter in the file (A, B, … AA); empty when the file lacks it"),
  code: z.string().describe('Message key'),
  cause: z.string().describe('The value or reason, in English'),
});
export type ImportError = z.infer<typeof ImportErrorSchema>;

export const ImportStatusSchema = z.object({
  importId: IdSchema,
  jobId: z.string(),
  state: z.enum(IMPORT_STATES),
  fileName: z.string(),
  total: z.number().int().describe('Data rows in the file (known once read)'),
  done: z.number().int().describe('Rows checked or written so far'),
  imported: z.number().int().describe('Rows written; 0 unless the whole file was valid'),
  errorCount: z.number().int(),
  errors: z.array(ImportErrorSchema),
});
export type ImportStatus = z.infer<typeof ImportStatusSchema>;

export const ImportStartedSchema = z.object({ importId: IdSchema, jobId: z.string() });

/**
 * The import calls of an archive entity: a template in the user's language, the upload (the
 * `.xlsx` file as the raw request body), and the status the import dialog follows (with
 * `progress/{jobId}` on the broker for the live bar).
 */
export function importApi(spec: { path: string; tag: string; res: string }) {
  const { path, tag, res } = spec;
  return {
    template: defineOperation({
      path: `/${path}/template`,
      access: needs(res),
      tag,
      summary: `${tag}: the import template (.xlsx) with its headers in the caller's language`,
      request: z.strictObject({}),
      response: z.never(),
    }),
    import: defineOperation({
      path: `/${path}/import`,
      access: needs(res),
      tag,
      summary: `${tag}: import an .xlsx file (the raw body, Content-Type of a workbook); every row is checked first and nothing is written unless all are valid. Runs as a job`,
      request: z.never(),
      response: ImportStartedSchema,
      audit: 'add',
    }),
    importStatus: defineOperation({
      path: `/${path}/importstatus`,
      access: needs(res),
      tag,
      summary: `${tag}: how an import the caller started is going, and every bad row once checked`,
      request: z.strictObject({ importId: IdSchema }),
      response: ImportStatusSchema,
    }),
  };
}
