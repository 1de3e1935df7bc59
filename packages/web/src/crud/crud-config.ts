import {
  type ChosenPeriod,
  type EntityDefinition,
  type FieldMeta,
  type FieldWidget,
  fieldMeta,
  type importApi,
  type LiveDeviceChange,
  type Operation,
  type Page,
} from '@meterdesk/contracts';
import type { ComponentType, ReactNode } from 'react';
import { z } from 'zod';

/** A field as the generic screens need it: its contracts meta plus the zod schema behind it. */
export interface FieldDescriptor extends FieldMeta {
  key: string;
  schema?: z.ZodType;
  /** The fields of a `group`, each with its own meta. */
  fields?: FieldDescriptor[];
  /** A list of records (a consumer's POCs): their declared fields, which the detail shows as a table's columns. */
  items?: FieldDescriptor[];
  /** The form's input of a field the kit's widgets cannot draw (a firmware's upload). */
  Input?: FieldInputComponent;
  /** A `rows` field: the input the screen draws for it (the crud config's `rowsInputs`). */
  RowsInput?: ComponentType<RowsInputProps>;
}

/**
 * The input of a `rows` field (a list of records): it draws its own `Form.List` under `name`, each
 * member a form item of its own, so a refusal naming `items.2.value` lands on that input.
 */
export interface RowsInputProps {
  field: FieldDescriptor;
  name: string | string[];
  /** The request schema of the list, which checks it as the server will. */
  schema: z.ZodType | undefined;
}

/** An input of a form field: what antd's Form.Item hands its control. */
export type FieldInputComponent = ComponentType<{ id?: string; value?: unknown; onChange?: (value: unknown) => void }>;

export type Row = Record<string, unknown>;

type AnyEntity = EntityDefinition<z.ZodObject, string>;

/** Asks the server whether a name is taken; answers `{existed}`. */
export interface UniqueCheck {
  operation: Operation;
  /** Other fields the answer depends on (e.g. the parent), so changing them checks again. */
  dependsOn: readonly string[];
  /** The check's request for one field value; undefined skips the check (e.g. no parent chosen yet). */
  request(value: string, values: Record<string, unknown>, id: string | undefined): object | undefined;
}

/**
 * A button in a row of the list. Exactly one of `to`, `run` and `Dialog` says what it does.
 * `key` names it in the test id (`row-<key>-<row key>`) and, unless `label` says otherwise, its text
 * (`<entity>.actions.<key>`).
 */
export interface RowAction<R = Row> {
  key: string;
  label?: string;
  icon?: ReactNode;
  /** The resource (a page or a type-3 button) the user needs to see the action. */
  permission: string;
  visible?: (row: R) => boolean;
  to?: (row: R) => string;
  run?: {
    operation: Operation;
    request: (row: R) => object;
    /** i18n key of the question; the row's values interpolate into it. */
    confirm: string;
    /** i18n key of the success message. */
    done: string;
    danger?: boolean;
  };
  Dialog?: ComponentType<{ row: R; onClose: () => void }>;
  /** Also offered on the record's detail page, beside Edit. */
  onDetail?: boolean;
  /** Offered on the record's detail page only, not in the list's rows (show on map). */
  detailOnly?: boolean;
}

/** A field's value drawn by a component of its own, in the list and the detail (a meter's live online state). */
export type FieldCell = ComponentType<{ row: Row; value: unknown; field: FieldDescriptor }>;

/**
 * A list shown under a record's detail (a POC's meter replacements): the rows `operation` answers
 * for the record, with `columns` of the row schema, labelled by their field meta.
 */
export interface RelatedList<R = Row> {
  key: string;
  /** i18n key of its title. */
  title: string;
  operation: Operation;
  request: (record: R) => object;
  columns: readonly string[];
}

/**
 * A required time window filter: two ISO moments at most `maxDays` apart (the system log), or, with
 * `period`, whole UTC days or months as an analytics page declares them (its keys, limit and default).
 */
export interface TimeRangeFilter {
  label: string;
  startKey: string;
  endKey: string;
  maxDays: number;
  period?: ChosenPeriod;
}

/** The hidden pages of an entity's add and edit form and of its detail (edit may share add's). */
export interface CrudPagePaths {
  add: string;
  edit: string;
  detail: string;
}

/** Where the resource tree puts an entity's form and detail unless the entity says otherwise. */
export const crudPagePaths = (pagePath: string): CrudPagePaths => ({
  add: `${pagePath}/add`,
  edit: `${pagePath}/edit`,
  detail: `${pagePath}/detail`,
});

/** What the generic list, form and detail screens run on: one entity and its operations. */
export interface CrudConfig {
  entity: AnyEntity;
  pages: CrudPagePaths;
  /**
   * The button resource under which the list adds and edits in a dialog, for a page the resource
   * tree gives no add or edit page (the event definitions' `save`).
   */
  formDialog?: string;
  /** A paged list, or (`tree`) the whole tree in one answer, nodes carrying `children`. */
  list?: Operation;
  tree?: Operation;
  detail?: Operation;
  create?: Operation;
  update?: Operation;
  /** The list's export to a file, offered with the `<page>/export` button. */
  exportFile?: Operation;
  /** An archive import (template, upload, status); the list shows Import with the `<page>/import` button. */
  importCalls?: ReturnType<typeof importApi>;
  /**
   * The export takes the columns and the format (`{columns, format}`, the archive's exports): the
   * button opens a dialog to choose them. Without it the button downloads the list as it is.
   */
  exportDialog: boolean;
  /** Deletes selected rows at once (`{ids}` → `{deleted, failures}`): the list offers row selection. */
  batchRemove?: Operation;
  /** The field that keys a row, or the fields that do together (a meter's month). */
  rowKey: string | readonly string[];
  uniqueChecks: Readonly<Record<string, UniqueCheck>>;
  initialValues: Readonly<Record<string, unknown>>;
  /** Fields the add form shows after the entity's form fields (e.g. the initial password). */
  createFields: readonly string[];
  /**
   * Secrets both forms show last, always blank: the record never carries them (it says whether one is
   * set), and the server keeps the stored one when the field stays empty (a meter's HES password).
   */
  secretFields: readonly string[];
  rowActions: readonly RowAction[];
  /**
   * Each row offers View: the detail page when the user holds it, else a drawer of the detail fields.
   * False for a list whose own row action opens the record (task analysis: its Analysis page).
   */
  viewAction: boolean;
  timeRange?: TimeRangeFilter;
  /** What the view drawer shows instead of the entity's detail fields. */
  View?: ComponentType<{ crud: CrudConfig; row: Row }>;
  /** Lists the detail shows under the record's fields. */
  related: readonly RelatedList[];
  /** Form fields that open a titled section (field → i18n key of the title), for long forms. */
  formSections: Readonly<Record<string, string>>;
  /** Presentation the contracts do not declare yet; each entry belongs in the entity's schema. */
  overrides: Readonly<Partial<Record<string, Partial<FieldMeta>>>>;
  /** Fields stored in Chinese whose English twin an English interface shows (parentName → parentNameEn). */
  englishNames: Readonly<Partial<Record<string, string>>>;
  /** Fields the list and the detail draw with a component of their own. */
  cells: Readonly<Partial<Record<string, FieldCell>>>;
  /** The inputs of the form's `rows` fields (lists of records, such as a parameter template's items). */
  rowsInputs: Readonly<Partial<Record<string, ComponentType<RowsInputProps>>>>;
  /** Form fields drawn with an input of their own (a firmware's image upload). */
  inputs: Readonly<Partial<Record<string, FieldInputComponent>>>;
  /**
   * The list keeps every row on one line: columns take their declared widths, a cell too long for its
   * column ends in an ellipsis and shows its full text on hover (for long texts such as the log's).
   */
  singleLineRows: boolean;
  /**
   * Columns the list draws as one, their values one beneath the other (`[['linkState', 'lastCommTime']]`),
   * so a list of many short facts fits its screen; the column sits where the first stands and sorts by
   * the sortable one. The export and the detail keep each field its own column or line.
   */
  stackedColumns: readonly (readonly string[])[];
  /** Each table row carries the test id `<rowTestId>-<row key>`, for a journey that watches a row change. */
  rowTestId?: string;
  /**
   * The list shows devices' live state: it follows the live device feed (the node of its `gridId`
   * filter, else the caller's scope) and reads its page again when a change concerns a row it shows.
   */
  liveRows?: (row: Row, change: LiveDeviceChange) => boolean;
}

type Shape<S extends z.ZodObject> = z.output<S>;
type InputKey<C extends z.ZodType> = Extract<keyof z.input<C>, string>;

export interface CrudDefinition<S extends z.ZodObject, C extends z.ZodType, U extends z.ZodType> {
  entity: EntityDefinition<S>;
  /** The form and detail pages, when the resource tree names them otherwise than add, edit and detail. */
  pages?: CrudPagePaths;
  formDialog?: string;
  operations: {
    list?: Operation<z.ZodType, z.ZodType<Page<Shape<S>>>>;
    tree?: Operation<z.ZodType, z.ZodType<Shape<S>[]>>;
    detail?: Operation<z.ZodType, S>;
    create?: Operation<C, z.ZodType>;
    update?: Operation<U, z.ZodType>;
    /** Deletes a row after the user confirms, with the `<page>/delete` button. */
    remove?: Operation;
    exportFile?: Operation;
  };
  importCalls?: ReturnType<typeof importApi>;
  /**
   * The delete request for a row (default `{id}`); `removable` hides delete on rows that cannot go;
   * `batch`: the remove operation takes `{ids}` and answers `{deleted, failures}`, so rows can be
   * selected and deleted together.
   */
  remove?: { request?: (row: Shape<S>) => object; removable?: (row: Shape<S>) => boolean; batch?: boolean };
  /** The export operation takes `{columns, format}` besides the list's filters (see CrudConfig). */
  exportDialog?: boolean;
  rowKey?: Extract<keyof S['shape'], string> | readonly Extract<keyof S['shape'], string>[];
  uniqueChecks?: {
    operation: Operation<z.ZodType, z.ZodType<{ existed: boolean }>>;
    dependsOn?: readonly InputKey<C>[];
    fields: Partial<
      Record<InputKey<C>, (value: string, values: Partial<z.input<C>>, id: string | undefined) => object | undefined>
    >;
  };
  initialValues?: Partial<z.input<C>>;
  createFields?: readonly InputKey<C>[];
  secretFields?: readonly InputKey<C>[];
  rowActions?: readonly RowAction<Shape<S>>[];
  /** Offer the View action on each row (default true; see CrudConfig). */
  viewAction?: boolean;
  timeRange?: TimeRangeFilter;
  View?: ComponentType<{ crud: CrudConfig; row: Row }>;
  related?: readonly RelatedList<Shape<S>>[];
  formSections?: Partial<Record<InputKey<C>, string>>;
  overrides?: Partial<Record<Extract<keyof S['shape'], string>, Partial<FieldMeta>>>;
  englishNames?: Partial<Record<Extract<keyof S['shape'], string>, Extract<keyof S['shape'], string>>>;
  cells?: Partial<Record<Extract<keyof S['shape'], string>, FieldCell>>;
  rowsInputs?: Partial<Record<InputKey<C>, ComponentType<RowsInputProps>>>;
  inputs?: Partial<Record<InputKey<C>, FieldInputComponent>>;
  singleLineRows?: boolean;
  stackedColumns?: readonly (readonly Extract<keyof S['shape'], string>[])[];
  rowTestId?: string;
  liveRows?: (row: Shape<S>, change: LiveDeviceChange) => boolean;
}

export const DELETE_ACTION = 'delete';

/** Type-checks a resource file's wiring against its entity, then erases the generics for the screens. */
export function defineCrud<S extends z.ZodObject, C extends z.ZodType, U extends z.ZodType>(
  definition: CrudDefinition<S, C, U>,
): CrudConfig {
  const { operations, uniqueChecks, entity } = definition;
  const checks: Record<string, UniqueCheck> = {};
  for (const [field, request] of Object.entries(uniqueChecks?.fields ?? {})) {
    if (uniqueChecks && typeof request === 'function') {
      checks[field] = {
        operation: uniqueChecks.operation,
        dependsOn: uniqueChecks.dependsOn ?? [],
        request: request as UniqueCheck['request'],
      };
    }
  }
  const rowActions = [...(definition.rowActions ?? [])] as unknown as RowAction[];
  if (operations.remove) {
    const removeRequest = (definition.remove?.request ?? ((row: Row) => ({ id: row.id }))) as (row: Row) => object;
    rowActions.push({
      key: DELETE_ACTION,
      label: 'common.actions.delete',
      permission: `${entity.pagePath}/${DELETE_ACTION}`,
      visible: definition.remove?.removable as ((row: Row) => boolean) | undefined,
      run: {
        operation: operations.remove,
        request: removeRequest,
        confirm: 'crud.confirmDelete',
        done: 'crud.deleted',
        danger: true,
      },
    });
  }
  return {
    entity: entity as unknown as AnyEntity,
    pages: definition.pages ?? crudPagePaths(entity.pagePath),
    formDialog: definition.formDialog,
    list: operations.list,
    tree: operations.tree,
    detail: operations.detail,
    create: operations.create,
    update: operations.update,
    exportFile: operations.exportFile,
    importCalls: definition.importCalls,
    exportDialog: definition.exportDialog ?? false,
    batchRemove: definition.remove?.batch ? operations.remove : undefined,
    rowKey: definition.rowKey ?? 'id',
    uniqueChecks: checks,
    initialValues: definition.initialValues ?? {},
    createFields: definition.createFields ?? [],
    secretFields: definition.secretFields ?? [],
    rowActions,
    viewAction: definition.viewAction ?? true,
    timeRange: definition.timeRange,
    View: definition.View,
    related: (definition.related ?? []) as unknown as RelatedList[],
    formSections: (definition.formSections ?? {}) as Record<string, string>,
    overrides: definition.overrides ?? {},
    englishNames: definition.englishNames ?? {},
    cells: (definition.cells ?? {}) as Record<string, FieldCell>,
    rowsInputs: (definition.rowsInputs ?? {}) as Record<string, ComponentType<RowsInputProps>>,
    inputs: (definition.inputs ?? {}) as Record<string, FieldInputComponent>,
    singleLineRows: definition.singleLineRows ?? false,
    stackedColumns: definition.stackedColumns ?? [],
    rowTestId: definition.rowTestId,
    liveRows: definition.liveRows as CrudConfig['liveRows'],
  };
}

/** The key of a row: its key field's value, or its key fields' values joined by `/`. */
export const rowKeyOf = (config: CrudConfig, row: Row): string =>
  typeof config.rowKey === 'string'
    ? String(row[config.rowKey])
    : config.rowKey.map((key) => String(row[key])).join('/');

/** A row's value of `key` as the interface language shows it: the English twin when there is one. */
export function shownValue(config: CrudConfig, row: Row, key: string, language: 'en' | 'zh'): unknown {
  const twin = config.englishNames[key];
  const english = twin && language === 'en' ? row[twin] : undefined;
  return english === undefined || english === null || english === '' ? row[key] : english;
}

/** The object inside default/optional/nullable wrappers, if the schema is one. */
export function objectShape(schema: z.ZodType | undefined): Record<string, z.ZodType> | undefined {
  let current: z.ZodType | undefined = schema;
  while (current) {
    if (current instanceof z.ZodObject) return current.shape as Record<string, z.ZodType>;
    current = (current as unknown as { def?: { innerType?: z.ZodType } }).def?.innerType;
  }
  return undefined;
}

/** The fields of each record of a list of records (inside default/optional/nullable wrappers), if it is one. */
function itemShape(schema: z.ZodType | undefined): Record<string, z.ZodType> | undefined {
  let current: z.ZodType | undefined = schema;
  while (current) {
    if (current instanceof z.ZodArray) return objectShape(current.element as z.ZodType);
    current = (current as unknown as { def?: { innerType?: z.ZodType } }).def?.innerType;
  }
  return undefined;
}

/** The widget a schema without meta gets from its type: settings and dialogs declare plain zod. */
function inferWidget(key: string, schema: z.ZodType | undefined): FieldWidget {
  let current: z.ZodType | undefined = schema;
  while (current) {
    if (current instanceof z.ZodBoolean) return 'switch';
    if (current instanceof z.ZodNumber) return 'number';
    if (current instanceof z.ZodObject) return 'group';
    current = (current as unknown as { def?: { innerType?: z.ZodType } }).def?.innerType;
  }
  return /password/i.test(key) ? 'password' : 'text';
}

/** A field from its schema's meta; `group` fields carry their members described the same way. */
export function describeSchemaField(key: string, schema: z.ZodType | undefined, labelPrefix: string): FieldDescriptor {
  const meta = schema ? fieldMeta(schema) : undefined;
  const descriptor: FieldDescriptor = {
    key,
    label: `${labelPrefix}.${key}`,
    widget: inferWidget(key, schema),
    ...meta,
    schema,
  };
  if (descriptor.widget === 'group') {
    const shape = objectShape(schema) ?? {};
    descriptor.fields = Object.entries(shape).map(([member, memberSchema]) =>
      describeSchemaField(member, memberSchema, labelPrefix),
    );
  }
  const items = itemShape(schema);
  if (items) {
    // Members without meta (the row's id) are keys, not columns.
    descriptor.items = Object.entries(items)
      .filter(([, memberSchema]) => fieldMeta(memberSchema) !== undefined)
      .map(([member, memberSchema]) => describeSchemaField(member, memberSchema, labelPrefix));
  }
  return descriptor;
}

/**
 * A field of the entity: its meta from the record (or the request, for a field only an input has).
 * Its `schema` is what an input of it takes — `input` (a list filter's), else the save's — since the
 * record checks only the types of what is stored.
 */
export function describeField(config: CrudConfig, key: string, input?: z.ZodType): FieldDescriptor {
  const request = requestShape(config.create)[key] ?? requestShape(config.update)[key];
  const described = describeSchemaField(
    key,
    (config.entity.record.shape[key] as z.ZodType | undefined) ?? request,
    `${config.entity.name}.fields`,
  );
  const RowsInput = config.rowsInputs[key];
  const Input = config.inputs[key];
  return {
    ...described,
    schema: input ?? request ?? described.schema,
    ...config.overrides[key],
    ...(RowsInput ? { RowsInput } : {}),
    ...(Input && { Input }),
  };
}

/** The object schema of an operation's request, whose keys are the only ones the server accepts. */
export function requestShape(operation: Operation | undefined): Record<string, z.ZodType> {
  return objectShape(operation?.request) ?? {};
}

/** The fields of an operation's request (all of them, or `keys`), labelled `<labelPrefix>.<key>` unless declared. */
export function describeRequest(
  operation: Operation,
  labelPrefix: string,
  keys?: readonly string[],
): FieldDescriptor[] {
  const shape = requestShape(operation);
  return (keys ?? Object.keys(shape)).map((key) => describeSchemaField(key, shape[key], labelPrefix));
}

/** Form widgets hand back null for "empty"; the schemas expect the member to be missing. */
export function normalizeValue(value: unknown): unknown {
  return value === null ? undefined : value;
}

export function isRequired(schema: z.ZodType | undefined): boolean {
  return schema ? !schema.safeParse(undefined).success : false;
}

/** The defaults an operation's request declares (e.g. orderNum 0) for `keys`, or for all its fields. */
export function requestDefaults(operation: Operation | undefined, keys?: readonly string[]): Record<string, unknown> {
  const shape = requestShape(operation);
  const defaults: Record<string, unknown> = {};
  for (const key of keys ?? Object.keys(shape)) {
    const parsed = shape[key]?.safeParse(undefined);
    if (parsed?.success && parsed.data !== undefined) defaults[key] = parsed.data;
  }
  return defaults;
}

/** Defaults the create schema declares, under the resource file's own initial values. */
export function createDefaults(config: CrudConfig, keys: readonly string[]): Record<string, unknown> {
  return { ...requestDefaults(config.create, keys), ...config.initialValues };
}
