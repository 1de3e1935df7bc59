import { fieldMeta, type ImportError, type MessageKey } from '@meterdesk/contracts';
import type { SQL } from 'drizzle-orm';
import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { z } from 'zod';
import type { Executor } from '../../../db/driver';
import { newId } from '../../../db/ids';
import type { Scope } from '../../../rbac/scope';
import type { UniqueKey } from '../archive-kit';
import {
  type CheckResult,
  cellValue,
  duplicatesInFile,
  type FileColumn,
  type ImportColumn,
  type ImportContext,
  type ImportDefinition,
  type ImportRow,
  idsByKey,
  importError,
  schemaErrors,
  takenValues,
} from './import-kit';

/**
 * What a cell naming a record resolves to, by its lower-cased text: the record's id, or the key
 * that says why the text names no single record (several grid nodes share a name).
 */
export type Resolved = Map<string, string | { refused: MessageKey }>;

/** A column that names another record by its business key (a grid by name or code, a supplier by name). */
export interface ReferenceColumn extends ImportColumn {
  /** The create field the found id fills. */
  field: string;
  /** The ids of the texts `values` name, among the records the caller may point at. */
  resolve(db: Executor, values: string[], scope: Scope): Promise<Resolved>;
  notFound: MessageKey;
}

/** A reference by one business key column, within `within` (the caller's grid scope) when given. */
export function keyReference(spec: {
  table: PgTable;
  keyColumn: AnyPgColumn;
  idColumn: AnyPgColumn;
  within?(scope: Scope): SQL | undefined;
}): ReferenceColumn['resolve'] {
  return (db, values, scope) =>
    idsByKey(db, spec.table, spec.keyColumn, spec.idColumn, values, spec.within?.(scope)) as Promise<Resolved>;
}

/** A column that fills the create field of the same name. */
export interface FieldColumn extends ImportColumn {
  field?: undefined;
}

/** A rule beyond the schema, on a field of a row: its message key and the value it refuses. */
export interface FieldIssue {
  field: string;
  key: MessageKey;
  value?: string;
}

/** What a row's rules answer: the input to store (perhaps normalised), or why not. */
export type RuleOutcome<Create> = { input: Create } | { issues: FieldIssue[] };

export interface RecordImportSpec<Create> {
  entity: string;
  api: ImportDefinition['api'];
  create: z.ZodObject;
  table: PgTable;
  unique: Record<string, UniqueKey>;
  /** Columns besides the unique keys whose values may not repeat within a file (a meter at one POC). */
  distinctInFile?: readonly string[];
  columns: readonly (FieldColumn | ReferenceColumn)[];
  /**
   * Rules the schema cannot state (across fields, or against the database), read once for a chunk
   * of rows and then asked for each valid input among them.
   */
  rules?(rows: ImportRow[], ctx: ImportContext): Promise<(input: Create) => RuleOutcome<Create>>;
  /** The stored row of a valid input (no query: the references are already ids). */
  values(input: Create, id: string): Record<string, unknown>;
}

const isReference = (column: FieldColumn | ReferenceColumn): column is ReferenceColumn => column.field !== undefined;

/**
 * A column for each field of `create`, in its order: headed by the field's label, required when the
 * field has no default, with the field's example in the template.
 */
export function fieldColumns(create: z.ZodObject): FieldColumn[] {
  return Object.entries(create.shape as Record<string, z.ZodType>).map(([key, schema]) => {
    const meta = fieldMeta(schema);
    return {
      key,
      label: meta?.label ?? key,
      ...(schema.safeParse(undefined).success ? {} : { required: true }),
      ...(meta?.example ? { example: meta.example } : {}),
    };
  });
}

/**
 * The import of an archive entity whose record fills its table as add does: a column per field of
 * its create schema, its business keys unique, each row stored as its input.
 */
export function archiveImport<Create>(
  archive: { entity: { name: string; create?: z.ZodObject }; table: PgTable; unique: Record<string, UniqueKey> },
  api: ImportDefinition['api'],
): ImportDefinition<Record<string, unknown>[]> {
  const create = archive.entity.create;
  if (!create) throw new Error(`${archive.entity.name}: an import needs the entity's create schema`);
  return recordImport<Create>({
    entity: archive.entity.name,
    api,
    create,
    table: archive.table,
    unique: archive.unique,
    columns: fieldColumns(create),
    values: (input, id) => ({ ...input, id }),
  });
}

/** The error of a reference cell: unknown (or outside the caller's scope), or naming several records. */
export function referenceError(
  resolved: Resolved | undefined,
  text: string,
  line: number,
  column: FileColumn,
  notFound: MessageKey,
): { id: string; error?: undefined } | { id?: undefined; error: ImportError } {
  const found = resolved?.get(text.trim().toLowerCase());
  if (typeof found === 'string') return { id: found };
  return { error: importError(line, column, found?.refused ?? notFound, text) };
}

/**
 * The import of a record that fills one table: every cell converted as its field expects, the
 * references resolved within the caller's scope, the business keys unique in the file and in the
 * database; then each chunk's rows written at once.
 */
export function recordImport<Create>(spec: RecordImportSpec<Create>): ImportDefinition<Record<string, unknown>[]> {
  const shape = spec.create.shape as Record<string, z.ZodType>;
  const references = spec.columns.filter(isReference);
  const columnOfField = new Map<string, string>(spec.columns.map((c) => [isReference(c) ? c.field : c.key, c.key]));
  const inFile = [...Object.keys(spec.unique), ...(spec.distinctInFile ?? [])];

  // A column converts as the create field of its key: the template lists that field's allowed values.
  const columns = spec.columns.map((c) => (isReference(c) ? c : { ...c, schema: shape[c.key] }));

  return {
    entity: spec.entity,
    api: spec.api,
    columns,
    pass(ctx) {
      const { columnOf } = ctx;
      const repeated = duplicatesInFile(inFile, columnOf);
      return async (rows): Promise<CheckResult<Record<string, unknown>[]>> => {
        const errors: ImportError[] = repeated(rows);
        const resolved = new Map<string, Resolved>();
        for (const ref of references) {
          resolved.set(
            ref.key,
            await ref.resolve(
              ctx.db,
              rows.map((r) => r.cells[ref.key] ?? ''),
              ctx.scope,
            ),
          );
        }
        const taken = new Map<string, (value: string) => boolean>();
        for (const [key, unique] of Object.entries(spec.unique)) {
          taken.set(
            key,
            await takenValues(
              ctx.db,
              spec.table,
              unique.column,
              rows.map((r) => r.cells[key] ?? ''),
            ),
          );
        }
        const rule = spec.rules ? await spec.rules(rows, ctx) : undefined;
        const planned: Record<string, unknown>[] = [];
        const columnOfKey = (field: string) => columnOf(columnOfField.get(field) ?? field);
        for (const row of rows) {
          const input: Record<string, unknown> = {};
          const rowErrors: ImportError[] = [];
          for (const column of columns) {
            const text = row.cells[column.key] ?? '';
            if (!isReference(column)) {
              const value = cellValue(column.schema, text);
              if (value !== undefined) input[column.key] = value;
              continue;
            }
            if (text === '') continue;
            const found = referenceError(
              resolved.get(column.key),
              text,
              row.line,
              columnOf(column.key),
              column.notFound,
            );
            if (found.error) rowErrors.push(found.error);
            else input[column.field] = found.id;
          }
          const parsed = spec.create.safeParse(input);
          if (!parsed.success) {
            // A reference already refused (an unknown grid) is not reported again as missing.
            const reported = new Set(rowErrors.map((e) => e.column));
            rowErrors.push(
              ...schemaErrors(
                parsed.error.issues.filter((issue) => !reported.has(columnOfKey(String(issue.path[0])).header)),
                row.line,
                columnOfKey,
                row.cells,
                (field) => columnOfField.get(field) ?? field,
              ),
            );
          }
          for (const [key, isTaken] of taken) {
            const value = row.cells[key] ?? '';
            if (value !== '' && isTaken(value)) rowErrors.push(importError(row.line, columnOf(key), 'existed', value));
          }
          let stored = parsed.data as Create | undefined;
          if (stored !== undefined && rowErrors.length === 0 && rule) {
            const outcome = rule(stored);
            if ('issues' in outcome) {
              for (const issue of outcome.issues) {
                const key = columnOfField.get(issue.field) ?? issue.field;
                rowErrors.push(importError(row.line, columnOf(key), issue.key, issue.value ?? row.cells[key] ?? ''));
              }
              stored = undefined;
            } else stored = outcome.input;
          }
          if (rowErrors.length) errors.push(...rowErrors);
          else if (stored !== undefined) planned.push(spec.values(stored, newId()));
        }
        if (errors.length) return { errors: errors.sort((a, b) => a.line - b.line) };
        return { errors: [], plan: planned };
      };
    },
    write: (plan, writer) => writer.bulk(spec.table, plan as never),
  };
}
