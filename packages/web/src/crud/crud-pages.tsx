import type { ComponentType } from 'react';
import type { CrudConfig } from './crud-config';
import { CrudDetailPage } from './crud-detail';
import { CrudFormPage } from './crud-form-page';
import { CrudListPage } from './crud-list-page';

/** The screens of one entity; the registry routes its list, add/edit and detail paths to them. */
export interface CrudPages {
  list: ComponentType;
  form: ComponentType;
  detail: ComponentType;
}

export function createCrudPages(crud: CrudConfig): CrudPages {
  return {
    list: () => <CrudListPage crud={crud} />,
    form: () => <CrudFormPage crud={crud} />,
    detail: () => <CrudDetailPage crud={crud} />,
  };
}
