import { z } from 'zod';
import type { ListEntity } from '../common/entity';
import { IdSchema } from '../common/ids';
import type { MessageKey } from '../common/messages';
import { defineOperation, needs } from '../common/operation';
import { MAX_OPTIONS, OptionSchema, OptionsQuerySchema, optionsAnswer } from '../common/options';
import { CursorQuerySchema, pageOf } from '../common/paging';
import { ExistedSchema } from '../common/validation';

/** The resources of an archive page: its list, its hidden add/edit/detail pages and its buttons. */
export interface ArchiveResources {
  page: string;
  add: string;
  edit: string;
  detail: string;
  delete: string;
  export?: string;
  import?: string;
}

/** The resources the resource tree gives an archive page at `page` (permissions.ts `archiveCrud`). */
export const archiveResources = (page: string, buttons: { export?: boolean; import?: boolean } = {}) => ({
  page,
  add: `${page}/add`,
  edit: `${page}/edit`,
  detail: `${page}/detail`,
  delete: `${page}/delete`,
  ...(buttons.export === false ? {} : { export: `${page}/export` }),
  ...(buttons.import === false ? {} : { import: `${page}/import` }),
});

/** spec §5: a batch selection holds at most 30 rows (the first 30 are kept); one batch delete takes that many. */
export const MAX_BATCH_DELETE = 30;
/** spec §5: an export offers at most this many columns; more shows the maximum and the count chosen. */
export const MAX_EXPORT_COLUMNS = 30;
/** Rows one export writes at most; a larger selection is narrowed with the filters first. */
export const MAX_EXPORT_ROWS = 1_000_000;
/**
 * Rows a PDF export writes at most: a PDF is laid out whole before its first byte goes out, so its
 * memory grows with its rows; the file says when rows were left out. The .xlsx streams every row.
 */
export const MAX_PDF_ROWS = 5_000;
/** An archive list counts this far (`totalCapped` says there are more): a million meters are never counted on each page. */
export const ARCHIVE_COUNT_CAP = 1_000;
/** What an export writes: a spreadsheet (spec §9: 150 px columns) or a PDF on A4 paper. */
export const EXPORT_FORMATS = ['xlsx', 'pdf'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** A row a batch delete left, with why (a message key such as `supplierInUse`). */
export const DeleteFailureSchema = z.object({
  id: IdSchema,
  name: z.string().describe('The business key of the row, as the user knows it'),
  key: z.string().describe('Message key of the reason') as z.ZodType<MessageKey>,
});

export const BatchDeleteResultSchema = z.object({
  deleted: z.number().int(),
  failures: z.array(DeleteFailureSchema),
});
export type BatchDeleteResult = z.infer<typeof BatchDeleteResultSchema>;

/**
 * How other forms pick records of an entity: its `options` call searches them by keyword within the
 * caller's scope, capped, and answers the records a form already holds by id.
 */
export interface PickerSpec<F extends z.ZodRawShape = z.ZodRawShape, O extends z.ZodObject = typeof OptionSchema> {
  /** The pages (and their add/edit pages) whose forms or filters pick these records. */
  pickedBy: readonly string[];
  /** What the keyword searches, for the summary (e.g. 'number'). */
  searches: string;
  /** The entity's own filters of a search (e.g. only meters at no POC). */
  filters?: F;
  /** What an option carries besides id and label (a meter type's supplier, which the meter form follows). */
  option?: O;
}

/** The add and edit pages of `page`: the forms that pick what its records reference. */
export const formsOf = (page: string) => [`${page}/add`, `${page}/edit`];

interface ArchiveApiSpec<Q extends z.ZodObject, C extends z.ZodObject, U extends string> {
  /** `/apis/<path>/<verb>`: the entity's name in lower case. */
  path: string;
  /** Its business keys (`unique`) are what the 'existed' check answers for. */
  entity: ListEntity & { listQuery: Q; unique: readonly U[]; create?: C };
  /** What save and update take (update adds the id), when the entity does not say. */
  create?: C;
  res: ArchiveResources;
  /** Other pages that show a record (a tariff's calendar on tariff configuration): they may read its detail. */
  viewedBy?: readonly string[];
}

/**
 * `/apis/<path>/options`, the call of an entity other forms pick (a meter form picks a supplier): one
 * searched picker for every form that references it.
 */
export function optionsApi<F extends z.ZodRawShape = Record<never, never>, O extends z.ZodObject = typeof OptionSchema>(
  path: string,
  tag: string,
  picker: PickerSpec<F, O>,
) {
  return defineOperation({
    path: `/${path}/options`,
    access: needs(...picker.pickedBy),
    tag,
    summary:
      `${tag}: a picker's search — records (within the caller's grid scope, where the entity has one) whose ${picker.searches} contains the keyword ` +
      `(at most ${MAX_OPTIONS}, in key order; \`more\` says others match), after the records named by ids`,
    request: OptionsQuerySchema.extend(picker.filters ?? ({} as F)),
    response: optionsAnswer(picker.option ?? (OptionSchema as unknown as O)),
  });
}

/**
 * The calls of an archive entity, named as DESIGN.md says (`list`, `detail`, `save`, `update`,
 * `delete`, `check`, `export`). An entity other forms pick adds `optionsApi`.
 */
export function archiveApi<Q extends z.ZodObject, C extends z.ZodObject, const U extends string>(
  spec: ArchiveApiSpec<Q, C, U>,
) {
  const { path, entity, res } = spec;
  const tag = entity.name;
  const create = spec.create ?? entity.create;
  if (!create) throw new Error(`${tag}: neither the entity nor its calls say what save takes`);
  const uniqueFields = entity.unique as unknown as [U, ...U[]];
  return {
    list: defineOperation({
      path: `/${path}/list`,
      access: needs(res.page),
      tag,
      summary: `${tag}: the caller's records within their grid scope, filtered, sorted and paged (by cursor in the default order), counted up to ${ARCHIVE_COUNT_CAP}`,
      request: spec.entity.listQuery.extend(CursorQuerySchema.shape),
      response: pageOf(entity.record).extend({
        noScope: z
          .boolean()
          .optional()
          .describe(
            'True when the caller holds neither the admin role nor a user group with a grid: the list is empty for that reason',
          ),
      }),
    }),
    detail: defineOperation({
      path: `/${path}/detail`,
      access: needs(res.detail, res.edit, ...(spec.viewedBy ?? [])),
      tag,
      summary: `${tag}: one record; 404 outside the caller's scope`,
      request: z.strictObject({ id: IdSchema }),
      response: entity.record,
    }),
    save: defineOperation({
      path: `/${path}/save`,
      access: needs(res.add),
      tag,
      summary: `${tag}: add one; business keys are unique`,
      request: create,
      response: z.object({ id: IdSchema }),
      audit: 'add',
    }),
    update: defineOperation({
      path: `/${path}/update`,
      access: needs(res.edit),
      tag,
      summary: `${tag}: edit one`,
      request: create.extend({ id: IdSchema }) as unknown as z.ZodType<z.output<C> & { id: string }>,
      response: z.null(),
      audit: 'update',
    }),
    delete: defineOperation({
      path: `/${path}/delete`,
      access: needs(res.delete),
      tag,
      summary: `${tag}: delete the given rows; a row still in use stays, and the answer says why`,
      request: z.strictObject({
        ids: z.array(IdSchema).min(1, 'mandatory').max(MAX_BATCH_DELETE, 'tooLong'),
      }),
      response: BatchDeleteResultSchema,
      audit: 'delete',
    }),
    check: defineOperation({
      path: `/${path}/check`,
      access: needs(res.add, res.edit),
      tag,
      summary: `${tag}: whether a business key is taken (by another record than \`id\`)`,
      request: z.strictObject({
        field: z.enum(uniqueFields, 'invalidValue'),
        value: z.string().trim().min(1, 'mandatory').max(100, 'tooLong'),
        id: IdSchema.optional(),
      }),
      response: ExistedSchema,
    }),
    ...(res.export
      ? {
          export: defineOperation({
            path: `/${path}/export`,
            access: needs(res.export),
            tag,
            summary: `${tag}: the filtered rows as .xlsx, or as an A4 PDF (at most ${MAX_PDF_ROWS} rows), with the chosen columns`,
            request: exportRequest(spec.entity),
            response: z.never(),
          }),
        }
      : {}),
  };
}

/** What an export takes besides the list's filters and sort. */
export type ExportOptions = {
  columns?: string[] | undefined;
  format: ExportFormat;
};

/** An export takes the list's filters and sort (no paging), the columns to write and the format. */
function exportRequest<Q extends z.ZodObject>(
  entity: ListEntity & { listQuery: Q },
): z.ZodType<
  Omit<z.output<Q>, 'pageSize' | 'curPage'> & ExportOptions,
  Omit<z.input<Q>, 'pageSize' | 'curPage'> & Partial<ExportOptions>
> {
  const columns = entity.columns.map((c) => c.field) as [string, ...string[]];
  const request = entity.listQuery.omit({ pageSize: true, curPage: true } as never).extend({
    columns: z
      .array(z.enum(columns, 'invalidValue'))
      .min(1, 'mandatory')
      .max(MAX_EXPORT_COLUMNS, 'tooLong')
      .optional()
      .describe('Columns to write, in order; all the list shows when absent'),
    format: z
      .enum(EXPORT_FORMATS, 'invalidValue')
      .default('xlsx')
      .describe(`xlsx (every row), or pdf: A4, landscape for many columns, the first ${MAX_PDF_ROWS} rows`),
  });
  return request as unknown as z.ZodType<
    Omit<z.output<Q>, 'pageSize' | 'curPage'> & ExportOptions,
    Omit<z.input<Q>, 'pageSize' | 'curPage'> & Partial<ExportOptions>
  >;
}
