import { useQueryClient } from '@tanstack/react-query';
import { App, Button } from 'antd';
import type { TFunction } from 'i18next';
import { type ReactNode, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { callApi } from '@/api/api-client';
import { usePermissions } from '@/app/permissions/permission-context';
import { isGranted } from '@/app/permissions/permission-index';
import { fieldText } from '@/fields/field-value';
import { errorText } from '@/i18n/message-text';
import { useLanguage } from '@/i18n/use-language';
import { type CrudConfig, describeField, type Row, type RowAction, shownValue } from './crud-config';
import { asDeleteResult, useDeleteReport } from './delete-report';

/** Test ids of the confirmation dialog's buttons, for every action that asks first. */
export const CONFIRM_OK = 'confirm-ok';
export const CONFIRM_CANCEL = 'confirm-cancel';

/** An action's label: its own, else `<entity>.actions.<key>`. */
export const actionLabel = (t: TFunction, crud: CrudConfig, action: Pick<RowAction, 'key' | 'label'>) =>
  t(action.label ?? `${crud.entity.name}.actions.${action.key}`);

/**
 * The entity's extra row actions the user holds, and what clicking one does: navigate, open its dialog,
 * or confirm and call its operation (then refresh the entity's queries and the pickers).
 */
export function useRowActions(crud: CrudConfig): {
  /** The actions the user holds at all (a row may still hide some). */
  held: RowAction[];
  visibleFor: (row: Row) => RowAction[];
  /** `onDone` gets the operation's answer once it succeeded (a page following what it started). */
  trigger: (action: RowAction, row: Row, onDone?: (answer: unknown) => void) => void;
  dialog: ReactNode;
} {
  const { t } = useTranslation();
  const language = useLanguage();
  const { modal, message } = App.useApp();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const permissions = usePermissions();
  const reportDelete = useDeleteReport();
  const [open, setOpen] = useState<{ action: RowAction; row: Row } | null>(null);
  const granted = crud.rowActions.filter((action) => isGranted(permissions, action.permission));

  const trigger = (action: RowAction, row: Row, onDone?: (answer: unknown) => void) => {
    if (action.to) {
      void navigate(action.to(row));
    } else if (action.Dialog) {
      setOpen({ action, row });
    } else if (action.run) {
      const { run } = action;
      // The list's first column names the record (a meter's number, a grid node's name), so the user
      // sees which row the question is about.
      const [first] = crud.entity.columns;
      const recordName = first
        ? fieldText(describeField(crud, first.field), shownValue(crud, row, first.field, language), t)
        : '';
      modal.confirm({
        title: t(run.confirm, { ...row, recordName }),
        okText: actionLabel(t, crud, action),
        cancelText: t('common.actions.cancel'),
        okButtonProps: { danger: run.danger, 'data-testid': CONFIRM_OK },
        cancelButtonProps: { 'data-testid': CONFIRM_CANCEL },
        onOk: async () => {
          try {
            const answer = await callApi(run.operation, run.request(row));
            // A batch delete answers which rows stayed and why, instead of failing as a whole.
            const deleted = asDeleteResult(answer);
            if (deleted) reportDelete(deleted, t(run.done));
            else message.success(t(run.done));
            onDone?.(answer);
          } catch (error) {
            message.error(errorText(t, error));
            return;
          }
          await Promise.all([
            queryClient.invalidateQueries({ queryKey: [crud.entity.name] }),
            queryClient.invalidateQueries({ queryKey: ['lookup'] }),
          ]);
        },
      });
    }
  };

  const Dialog = open?.action.Dialog;
  return {
    held: granted,
    visibleFor: (row) => granted.filter((action) => action.visible?.(row) ?? true),
    trigger,
    dialog: Dialog && open ? <Dialog row={open.row} onClose={() => setOpen(null)} /> : null,
  };
}

export function RowActionButton({
  crud,
  action,
  rowKey,
  onClick,
}: {
  crud: CrudConfig;
  action: Pick<RowAction, 'key' | 'label' | 'icon' | 'run'>;
  rowKey: string;
  onClick: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Button
      type="link"
      size="small"
      icon={action.icon}
      danger={action.run?.danger}
      data-testid={`row-${action.key}-${rowKey}`}
      onClick={onClick}
    >
      {actionLabel(t, crud, action)}
    </Button>
  );
}
