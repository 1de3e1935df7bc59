import { useQueryClient } from '@tanstack/react-query';
import { Modal } from 'antd';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { EditedRecordContext } from '@/fields/field-input';
import { type CrudConfig, createDefaults, describeField, type Row, requestShape, rowKeyOf } from './crud-config';
import { requestBody } from './crud-form-page';
import { OperationForm } from './operation-form';

/**
 * Add (no `record`) or edit a record in a dialog over the list, for pages whose resource tree gives
 * a save button rather than add and edit pages: the entity's form fields and their rules, the server's
 * issues (an 'existed' name) on their fields.
 */
export function CrudFormDialog({ crud, record, onClose }: { crud: CrudConfig; record?: Row; onClose: () => void }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const { entity } = crud;
  const id = record ? rowKeyOf(crud, record) : undefined;
  const operation = id === undefined ? crud.create : crud.update;
  const keys = useMemo(() => [...entity.form, ...(id === undefined ? crud.createFields : [])], [crud, entity, id]);
  const fields = useMemo(() => keys.map((key) => describeField(crud, key)), [crud, keys]);
  const initialValues = useMemo(
    () => (record ? Object.fromEntries(keys.map((key) => [key, record[key]])) : createDefaults(crud, keys)),
    [crud, keys, record],
  );
  if (!operation) return null;
  return (
    <Modal
      open
      title={t(id === undefined ? 'crud.addTitle' : 'crud.editTitle')}
      footer={null}
      onCancel={onClose}
      destroyOnHidden
      width={680}
    >
      <EditedRecordContext value={id}>
        <OperationForm
          operation={operation}
          fields={fields}
          initialValues={initialValues}
          prepare={(values) => requestBody(requestShape(operation), values, id)}
          onSaved={async () => {
            onClose();
            await Promise.all([
              queryClient.invalidateQueries({ queryKey: [entity.name] }),
              queryClient.invalidateQueries({ queryKey: ['lookup'] }),
            ]);
          }}
          submitTestId="crud-save"
          testId={`${entity.name}-form`}
        />
      </EditedRecordContext>
    </Modal>
  );
}
