import { z } from 'zod';
import { type FilterDefinition, listQuerySchema } from './list';
import type { MessageKey } from './messages';

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
  | 'checkTree'
  /**
   * A list of records (a parameter template's items): the detail shows them as a table of their
   * members, the form edits them with the input the screen names for the field (the crud `inputs`).
   */
  | 'rows';

export interface FieldOption {
  value: string | number;
  /** i18n key */
  label: string;
}

export interface FieldMeta {
  /** i18n key of the label, e.g. `resource.fields.resourceName` */
  label: string;
  widget: FieldWidget;
  /**
   * A business key: unique in any case across the archive. The server enforces it with the table's
   * unique index on `lower(column)`, the `check` call answers for it and the form asks as the user types.
   */
  unique?: true;
  /**
   * The message a taken business key answers where the spec words it (a billing rule's 'Rule name
   * already exists'); '<label> existed' otherwise.
   */
  existed?: MessageKey;
  /** What the import template shows in the field's column (a required field's typical value). */
  example?: string;
  options?: readonly FieldOption[];
  /**
   * i18n key prefixes under which a stored value may have a label (`<prefix>.<value>`, the first found);
   * a value none of them names shows as stored. For open sets of codes, such as collection items, where
   * an operator may add codes of their own.
   */
  valueLabels?: readonly string[];
  /**
   * A named lookup the web resolves for select/tree widgets (e.g. `resourceTree`); a picker of archive
   * records names one of `ARCHIVE_PICKERS` (archive/pickers.ts), searched on the server.
   */
  lookup?: string;
  /**
   * Filters of a searched lookup the form supplies: the options call's member → the form field holding
   * it (`id`: the edited record). Until every one has a value the picker offers nothing.
   */
  lookupWith?: Readonly<Record<string, string>>;
  /** Choosing an option sets these form fields from its members (form field → option member). */
  fills?: Readonly<Record<string, string>>;
  /** Select and tree widgets: the value is a list. */
  multiple?: boolean;
  /** i18n key of a help text shown under the form input. */
  help?: string;
  /** A switch whose `true` the user must not miss (a protected consumer): shown as a warning tag. */
  warning?: boolean;
  /**
   * i18n key of a warning the form shows while the field is empty: allowed, but with a consequence the
   * user must not miss (a user in no user group sees no grid records).
   */
  emptyWarning?: string;
}

/**
 * A field's meta as declared. An entity's own fields may leave the label out: `defineEntity` names it
 * `<entity>.fields.<key>`. Fields shared between entities or nested in a group name theirs.
 */
export type FieldSpec = Omit<FieldMeta, 'label'> & { label?: string };

export const fieldRegistry = z.registry<FieldMeta>();

declare const businessKey: unique symbol;
/** The type of a field declared `unique`: what lets the compiler list an entity's business keys. */
export interface BusinessKey {
  readonly [businessKey]: true;
}

/** The keys of a shape's business-key fields. */
export type UniqueKeys<S extends z.ZodObject> = Extract<
  { [K in keyof S['shape']]: S['shape'][K] extends BusinessKey ? K : never }[keyof S['shape']],
  string
>;

/** Declares a field once: its validation (`schema`) and its presentation (`meta`). */
export function field<T extends z.ZodType>(schema: T, meta: FieldSpec & { unique: true }): T & BusinessKey;
export function field<T extends z.ZodType>(schema: T, meta: FieldSpec): T;
export function field<T extends z.ZodType>(schema: T, meta: FieldSpec): T {
  // The meta goes on a copy: a shared schema (IdSchema) would otherwise carry the meta of whichever
  // field registered it last, and zod hands a registered parent's meta down to every copy.
  const own = (meta.label ? schema.describe(meta.label) : schema.clone()) as T;
  // A label left out is named by `defineEntity`, which knows the entity and the key.
  fieldRegistry.add(own, meta as FieldMeta);
  return own;
}

/** A value's own type, whatever rules an input of it follows. */
function typeOnly(schema: z.ZodType): z.ZodType {
  const def = schema._zod.def as z.core.$ZodTypeDef & {
    innerType?: z.ZodType;
    in?: z.ZodType;
    element?: z.ZodType;
    shape?: Record<string, z.ZodType>;
    options?: z.ZodType[];
    values?: unknown[];
    entries?: Record<string, unknown>;
  };
  let loose: z.ZodType;
  const ofValue = (value: unknown) => (typeof value === 'number' ? z.number() : z.string());
  switch (def.type) {
    case 'string':
      loose = z.string();
      break;
    case 'number':
      loose = z.number();
      break;
    case 'literal':
      loose = ofValue(def.values?.[0]);
      break;
    case 'enum':
      loose = ofValue(Object.values(def.entries ?? {})[0]);
      break;
    case 'union': {
      const options = (def.options ?? []).map(typeOnly);
      const kinds = new Set(options.map((option) => option._zod.def.type));
      loose = kinds.size === 1 ? (options[0] as z.ZodType) : z.union(options);
      break;
    }
    // A stored value is already what the input became.
    case 'pipe':
      loose = typeOnly(def.in as z.ZodType);
      break;
    // A record carries every member: defaults are the input's.
    case 'default':
      loose = typeOnly(def.innerType as z.ZodType);
      break;
    case 'nullable':
      loose = typeOnly(def.innerType as z.ZodType).nullable();
      break;
    case 'optional':
      loose = typeOnly(def.innerType as z.ZodType).optional();
      break;
    case 'array':
      loose = z.array(typeOnly(def.element as z.ZodType));
      break;
    case 'object':
      loose = z.object(
        Object.fromEntries(Object.entries(def.shape ?? {}).map(([key, member]) => [key, typeOnly(member)])),
      );
      break;
    default:
      loose = schema;
  }
  const meta = fieldRegistry.get(schema);
  if (meta) return field(loose, meta);
  return schema.description ? loose.describe(schema.description) : loose;
}

/**
 * A record as list and detail answer it, from fields declared with their input rules: the same fields
 * and meta, checked for their types only. A record says what is stored, and what is stored may lie
 * outside what an input takes today (legacy or seeded data) — an answer must not fail on it. Its
 * TypeScript type stays the declared one.
 */
export function storedRecord<S extends z.ZodObject>(schema: S): S {
  return typeOnly(schema) as S;
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
  /** The business keys (fields declared `unique`), in the order the record declares them. */
  unique: readonly K[];
}

export type ListEntity<S extends z.ZodObject = z.ZodObject> = EntityDefinition<
  S,
  string,
  readonly FilterDefinition[],
  readonly ColumnDefinition<string>[]
>;

type EntitySpec<
  S extends z.ZodObject,
  Cr extends z.ZodObject,
  F extends readonly FilterDefinition<Extract<keyof S['shape'], string>>[],
  C extends readonly ColumnDefinition<Extract<keyof S['shape'], string>>[],
> = Omit<EntityDefinition<S, Extract<keyof S['shape'], string>, F, C>, 'form' | 'detail' | 'unique'> & {
  /**
   * What add and edit take. When given, the form shows its fields in its order and the detail every
   * stored field, unless `form` or `detail` say otherwise; its fields' labels are named as the record's.
   */
  create?: Cr;
  form?: readonly Extract<keyof S['shape'], string>[];
  detail?: readonly Extract<keyof S['shape'], string>[];
};

/**
 * Names the label of every field of `shape` that declares none: `<entity>.fields.<key>`. The meta is
 * registered anew: the registry answers a copy for a schema that has a parent.
 */
function nameLabels(entity: string, shape: Record<string, z.ZodType>): void {
  for (const [key, member] of Object.entries(shape)) {
    let current: z.ZodType | undefined = member;
    while (current && !fieldRegistry.has(current)) current = (current.def as { innerType?: z.ZodType }).innerType;
    const meta = current && fieldRegistry.get(current);
    if (current && meta && !meta.label) fieldRegistry.add(current, { ...meta, label: `${entity}.fields.${key}` });
  }
}

/** The keys of a shape's fields declared `unique`, in its order. */
function uniqueKeys<S extends z.ZodObject>(schema: S): UniqueKeys<S>[] {
  return Object.entries(schema.shape as Record<string, z.ZodType>)
    .filter(([, member]) => fieldMeta(member)?.unique)
    .map(([key]) => key as UniqueKeys<S>);
}

export function defineEntity<
  S extends z.ZodObject,
  const F extends readonly FilterDefinition<Extract<keyof S['shape'], string>>[],
  const C extends readonly ColumnDefinition<Extract<keyof S['shape'], string>>[],
  Cr extends z.ZodObject = never,
>(spec: EntitySpec<S, Cr, F, C>) {
  nameLabels(spec.name, spec.record.shape);
  if (spec.create) nameLabels(spec.name, spec.create.shape);
  type K = Extract<keyof S['shape'], string>;
  const recordKeys = Object.keys(spec.record.shape) as K[];
  const form = spec.form ?? (spec.create ? (Object.keys(spec.create.shape) as K[]) : undefined);
  if (!form) throw new Error(`${spec.name}: an entity without its create schema names its form fields`);
  const entity = {
    ...spec,
    form,
    detail: spec.detail ?? recordKeys.filter((key) => key !== 'id'),
    unique: uniqueKeys(spec.create ?? spec.record) as unknown as readonly K[],
  };
  const sortable = entity.columns.filter((c) => c.sortable).map((c) => c.field) as SortableFields<C>[];
  return {
    ...entity,
    /** The business keys with their literal types (what `check` takes). */
    unique: entity.unique as readonly UniqueKeys<[Cr] extends [never] ? S : Cr>[],
    /** The list call's request: paging, the declared filters, `sortField` limited to the sortable columns. */
    listQuery: listQuerySchema(entity.filters, sortable),
    sortable,
  };
}
