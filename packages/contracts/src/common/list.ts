import { z } from 'zod';
import { IdSchema } from './ids';
import { PageQuerySchema } from './paging';

/**
 * How a list filter matches. Declared once on the entity: the list query schema, the server's
 * WHERE clause and the web's filter bar all come from it.
 * - `contains`: case-insensitive substring of a text column
 * - `equals`: the column equals the value
 * - `in`: the column is one of the values
 * - `subtree`: the column names a node at or below the given tree node (organisation, grid)
 * - `dateRange`: the column lies in [from, to) — two query keys
 */
export type FilterOp = 'contains' | 'equals' | 'in' | 'subtree' | 'dateRange';

export interface FilterDefinition<K extends string = string, Shape extends z.ZodRawShape = z.ZodRawShape> {
  /** The record field it filters: its label and widget draw the filter input. */
  field: K;
  op: FilterOp;
  /** The query keys the filter adds to the list query. */
  shape: Shape;
}

type Moment<Required extends boolean> = Required extends true ? z.ZodType<string> : z.ZodOptional<z.ZodType<string>>;

export interface DateRangeFilter<
  K extends string,
  From extends string,
  To extends string,
  Required extends boolean = boolean,
> extends FilterDefinition<K, { [P in From | To]: Moment<Required> }> {
  op: 'dateRange';
  from: From;
  to: To;
  required: boolean;
}

const single = <K extends string, T extends z.ZodType>(field: K, op: FilterOp, schema: T) =>
  ({ field, op, shape: { [field]: schema } }) as FilterDefinition<K, { [P in K]: T }>;

export const contains = <K extends string>(field: K, max = 100) =>
  single(field, 'contains', z.string().trim().max(max, 'tooLong').optional());

export const equals = <K extends string, T extends z.ZodType>(field: K, schema: T) =>
  single(field, 'equals', schema.optional());

export const oneOf = <K extends string, T extends z.ZodType>(field: K, schema: T) =>
  single(field, 'in', z.array(schema).max(100, 'tooLong').optional());

/**
 * A yes/no filter. JSON clients send a boolean; the web's filter bar (and its URL) the text
 * `'true'` or `'false'`; the server sees a boolean either way.
 */
export const flag = <K extends string>(field: K) =>
  single(
    field,
    'equals',
    z.union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')], 'invalidValue').optional(),
  );

export const subtree = <K extends string>(field: K) => single(field, 'subtree', IdSchema.optional());

const moment = z.iso.datetime({ offset: true, message: 'invalidValue' });

export function dateRange<K extends string, From extends string, To extends string, Required extends boolean>(
  field: K,
  from: From,
  to: To,
  options: { required: Required },
): DateRangeFilter<K, From, To, Required> {
  const schema = options.required ? moment : moment.optional();
  return {
    field,
    op: 'dateRange',
    from,
    to,
    required: options.required,
    shape: { [from]: schema, [to]: schema } as unknown as { [P in From | To]: Moment<Required> },
  };
}

export const isDateRange = (f: FilterDefinition): f is DateRangeFilter<string, string, string> => f.op === 'dateRange';

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
type Flatten<T> = { [K in keyof T]: T[K] };

/** The query keys of a set of filters, merged. */
export type FilterShape<F extends readonly FilterDefinition[]> = F extends readonly []
  ? // biome-ignore lint/complexity/noBannedTypes: no filter adds no key
    {}
  : Flatten<UnionToIntersection<F[number]['shape']>>;

/**
 * A list query: paging, the filters' keys and a `sortField` that names only the sortable
 * columns (any other value is refused with 400).
 */
export function listQuerySchema<const F extends readonly FilterDefinition[], const S extends readonly string[]>(
  filters: F,
  sortable: S,
) {
  const shape: z.ZodRawShape = {};
  for (const filter of filters) Object.assign(shape, filter.shape);
  const sortField = (
    sortable.length > 0 ? z.enum(sortable as unknown as [string, ...string[]], 'invalidValue') : z.never()
  )
    .optional()
    .describe('A sortable column of the list; others are refused');
  return PageQuerySchema.extend({
    ...shape,
    sortField,
    sortOrder: z.enum(['ascend', 'descend'], 'invalidValue').optional(),
  }) as unknown as z.ZodObject<
    typeof PageQuerySchema.shape &
      FilterShape<F> & {
        sortField: z.ZodOptional<z.ZodType<S[number]>>;
        sortOrder: z.ZodOptional<z.ZodEnum<{ ascend: 'ascend'; descend: 'descend' }>>;
      },
    z.core.$strict
  >;
}
