import type { FieldDescriptor } from '@/crud/crud-config';

/** What every input of a declared field takes: `FieldInput` and the inputs it delegates to. */
export interface FieldInputProps {
  field: FieldDescriptor;
  /** Filters may be cleared to "no condition"; forms keep their value. */
  mode?: 'form' | 'filter';
  id?: string;
  value?: unknown;
  onChange?: (value: unknown) => void;
  onBlur?: () => void;
}
