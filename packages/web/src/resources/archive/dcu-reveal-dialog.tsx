import { DCU_KEYS, dcuApi } from '@meterdesk/contracts';
import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Descriptions, Modal, Spin, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { callApi } from '@/api/api-client';
import type { Row } from '@/crud/crud-config';
import { errorText } from '@/i18n/message-text';

/**
 * A DCU's keys in clear. Each opening asks the server again (and so is logged); nothing is kept
 * in the query cache once the dialog closes.
 */
export function DcuRevealDialog({ row, onClose }: { row: Row; onClose: () => void }) {
  const { t } = useTranslation();
  const keys = useQuery({
    queryKey: ['dcu', 'reveal', row.id],
    queryFn: ({ signal }) => callApi(dcuApi.reveal, { id: String(row.id) }, { signal }),
    gcTime: 0,
    staleTime: 0,
    retry: false,
  });
  return (
    <Modal
      open
      width={640}
      title={t('dcu.revealTitle', { dcuNo: row.dcuNo })}
      onCancel={onClose}
      footer={
        <Button data-testid="dcu-reveal-close" onClick={onClose}>
          {t('common.actions.close')}
        </Button>
      }
      destroyOnHidden
    >
      <Typography.Paragraph type="secondary">{t('dcu.revealNotice')}</Typography.Paragraph>
      {keys.isLoading && <Spin />}
      {keys.error && <Alert type="error" showIcon title={errorText(t, keys.error)} />}
      {keys.data && (
        <Descriptions
          bordered
          column={1}
          size="small"
          data-testid="dcu-reveal-keys"
          items={DCU_KEYS.map((key) => {
            const value = keys.data[key];
            return {
              key,
              label: t(`dcu.fields.${key}`),
              children: value ? (
                <Typography.Text code copyable={{ text: value }} data-testid={`dcu-key-${key}`}>
                  {value}
                </Typography.Text>
              ) : (
                <Typography.Text type="secondary">{t('dcu.noKey')}</Typography.Text>
              ),
            };
          })}
        />
      )}
    </Modal>
  );
}
