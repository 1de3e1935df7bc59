import { EXPORT_FORMATS, type ExportFormat, MAX_EXPORT_COLUMNS, MAX_PDF_ROWS } from '@meterdesk/contracts';
import { useMutation } from '@tanstack/react-query';
import { Alert, App, Checkbox, Flex, Form, Modal, Radio, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '@/api/api-client';
import { downloadFile } from '@/api/download';
import { errorText } from '@/i18n/message-text';
import { useLanguage } from '@/i18n/use-language';
import { type CrudConfig, describeField, requestShape } from './crud-config';

/**
 * The export of a list: which of its columns (all ticked at first) and which format. The file holds
 * the rows of the list's current filters and sort order (`query`, the list's request).
 */
export function ExportDialog({
  crud,
  query,
  onClose,
}: {
  crud: CrudConfig;
  query: Record<string, unknown>;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const language = useLanguage();
  const { message } = App.useApp();
  const fields = crud.entity.columns.map((column) => column.field);
  const [chosen, setChosen] = useState<string[]>(fields);
  const [format, setFormat] = useState<ExportFormat>('xlsx');
  const tooMany = chosen.length > MAX_EXPORT_COLUMNS;
  const refusal = tooMany
    ? t('crud.exportDialog.tooManyColumns', { max: MAX_EXPORT_COLUMNS, count: chosen.length })
    : chosen.length === 0
      ? t('crud.exportDialog.noColumns')
      : undefined;

  const exportFile = useMutation({
    mutationFn: () => {
      if (!crud.exportFile) throw new ApiError(404, 'wrongApi');
      const accepted = requestShape(crud.exportFile);
      const filters = Object.fromEntries(Object.entries(query).filter(([key]) => key in accepted));
      // The file's columns follow the list's order, whatever order they were ticked in.
      const columns = fields.filter((field) => chosen.includes(field));
      return downloadFile(crud.exportFile, { ...filters, columns, format });
    },
    onSuccess: onClose,
    onError: (error) => message.error(errorText(t, error)),
  });

  return (
    <Modal
      open
      title={t('crud.exportDialog.title')}
      width={640}
      onCancel={onClose}
      onOk={() => exportFile.mutate()}
      okText={t('crud.exportDialog.button')}
      cancelText={t('common.actions.cancel')}
      okButtonProps={{ disabled: refusal !== undefined, loading: exportFile.isPending, 'data-testid': 'export-ok' }}
      cancelButtonProps={{ 'data-testid': 'export-cancel' }}
      destroyOnHidden
    >
      <Form layout="vertical">
        <Form.Item label={t('crud.exportDialog.columns')}>
          <Flex vertical gap="small">
            <Checkbox
              data-testid="export-all-columns"
              checked={chosen.length === fields.length}
              indeterminate={chosen.length > 0 && chosen.length < fields.length}
              onChange={(event) => setChosen(event.target.checked ? fields : [])}
            >
              {t('crud.exportDialog.allColumns')}
            </Checkbox>
            <Checkbox.Group
              value={chosen}
              onChange={(values) => setChosen(values)}
              style={{ display: 'grid', gridTemplateColumns: 'repeat(3, minmax(0, 1fr))', gap: 8 }}
            >
              {fields.map((field) => (
                <Checkbox key={field} value={field} data-testid={`export-column-${field}`}>
                  {t(describeField(crud, field).label)}
                </Checkbox>
              ))}
            </Checkbox.Group>
            {refusal && <Alert type="error" showIcon title={refusal} data-testid="export-refusal" />}
          </Flex>
        </Form.Item>
        <Form.Item label={t('crud.exportDialog.format')} style={{ marginBottom: 8 }}>
          <Radio.Group value={format} onChange={(event) => setFormat(event.target.value as ExportFormat)}>
            {EXPORT_FORMATS.map((value) => (
              <Radio key={value} value={value} data-testid={`export-format-${value}`}>
                {t(`crud.exportDialog.${value}`)}
              </Radio>
            ))}
          </Radio.Group>
        </Form.Item>
        <Flex vertical>
          <Typography.Text type="secondary">{t('crud.exportDialog.filtersApply')}</Typography.Text>
          {format === 'pdf' && (
            <Typography.Text type="secondary">
              {t('crud.exportDialog.pdfLimit', {
                max: MAX_PDF_ROWS.toLocaleString(language === 'zh' ? 'zh-CN' : 'en'),
              })}
            </Typography.Text>
          )}
        </Flex>
      </Form>
    </Modal>
  );
}
