import { z } from 'zod';
import { type FilterDefinition, listQuerySchema } from './list';

/**
 * How a field is shown. Attached to the zod schema of the field itself, so the one
 * declaration drives server validation, OpenAPI, the table, the filter bar, the form and
 * the detail view.
 */
export type FieldWidget =
  | 'text'
  | 'textarea'
  | 'number'
  | 'select'
  | 'treeSelect'
  | 'password'
  | 'date'
  | 'datetime'
  | 'icon'
  | 'switch'
  /** A nested object whose own fields carry their meta. */
  | 'group'
  /** A checkable tree of ids (e.g. a role's resources). */
  | 'checkTree';

export interface FieldOption {
  value: string | number;
  /** i18n key */
  label: string;
}

export interface FieldMeta {
  /** i18n key of the label, e.g. `resource.fields.resourceName` */
  label: string;
  widget: FieldWidget;
  options?: readonly FieldOption[];
  /** A named lookup the web resolves for select/tree widgets (e.g. `resourceTree`). */
  lookup?: string;
  /** Select and tree widgets: the value is a list. */
  multiple?: boolean;
  /** i18n key of a help text shown under the form input. */
  help?: string;
  /** A switch whose `true` the user must not miss (a protected consumer): shown as a warning tag. */
  warning?: boolean;
}

export const fieldRegistry = z.registry<FieldMeta>();

/** Declares a field once: its validation (`schema`) and its presentation (`meta`). */
export function field<T extends z.ZodType>(schema: T, meta: FieldMeta): T {
  // The meta goes on the described copy: a shared schema (IdSchema) would otherwise carry the meta of
  // whichever field registered it last, and zod hands a registered parent's meta down to every copy.
  const described = schema.describe(meta.label) as T;
  fieldRegistry.add(described, meta);
  return described;
}

/** The meta of a field, looking through optional/nullable/default wrappers. */
export function fieldMeta(schema: z.ZodType): FieldMeta | undefined {
  let current: z.ZodType | undefined = schema;
  while (current) {
    const meta = fieldRegistry.get(current);
    if (meta) return meta;
    const def: { innerType?: z.ZodType } | undefined = (current as unknown as { def?: { innerType?: z.ZodType } }).def;
    current = def?.innerType;
  }
  return undefined;
}

export interface ColumnDefinition<K extends string> {
  field: K;
  sortable?: boolean;
  width?: number;
}

type SortableFields<C extends readonly ColumnDefinition<string>[]> = Extract<C[number], { sortable: true }>['field'];

export interface EntityDefinition<
  S extends z.ZodObject,
  K extends string = Extract<keyof S['shape'], string>,
  F extends readonly FilterDefinition<K>[] = readonly FilterDefinition<K>[],
  C extends readonly ColumnDefinition<K>[] = readonly ColumnDefinition<K>[],
> {
  /** i18n namespace and API entity name, e.g. `resource` */
  name: string;
  /** The stored record as the API returns it. */
  record: S;
  /** The route of the list page; its add/edit/detail pages hang below it. */
  pagePath: string;
  /** The list's columns; `sortable` ones are the only values `sortField` takes. */
  columns: C;
  /** The list's filters, in the order the filter bar shows them. */
  filters: F;
  form: readonly K[];
  detail: readonly K[];
}

export type ListEntity<S extends z.ZodObject = z.ZodObject> = EntityDefinition<
  S,
  string,
  readonly FilterDefinition[],
  readonly ColumnDefinition<string>[]
>;

export function defineEntity<
  S extends z.ZodObject,
  const F extends readonly FilterDefinition<Extract<keyof S['shape'], string>>[],
  const C extends readonly ColumnDefinition<Extract<keyof S['shape'], string>>[],
>(entity: EntityDefinition<S, Extract<keyof S['shape'], string>, F, C>) {
  const sortable = entity.columns.filter((c) => c.sortable).map((c) => c.field) as SortableFields<C>[];
  return {
    ...entity,
    /** The list call's request: paging, the declared filters, `sortField` limited to the sortable columns. */
    listQuery: listQuerySchema(entity.filters, sortable),
    sortable,
  };
}
