import { type Poc, pocApi, pocEntity } from '@meterdesk/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Card, Descriptions, Spin } from 'antd';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { callApi } from '@/api/api-client';
import { usePermissions } from '@/app/permissions/permission-context';
import { normalizePath } from '@/app/routing/route-table';
import { useTabStore } from '@/app/tabs/tabs-context';
import { describeRequest } from '@/crud/crud-config';
import { OperationForm } from '@/crud/operation-form';
import { useListLocation } from '@/crud/use-list-location';
import { errorText } from '@/i18n/message-text';

const FIELDS = describeRequest(pocApi.replace, 'poc.replacement', [
  'newMeterId',
  'oldActiveTotal',
  'oldReactiveTotal',
  'newActiveTotal',
  'newReactiveTotal',
  'changeTime',
]);

/**
 * Replaces the meter of the POC `?id=`: the new meter (one at no POC) and the registers of both at
 * the change. Saved, it shows the POC's detail with the replacement in its history.
 */
export function PocReplacePage() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();
  const tabs = useTabStore();
  const permissions = usePermissions();
  const listLocation = useListLocation(pocEntity.pagePath);
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  const detailPath = `${pocEntity.pagePath}/detail`;
  const poc = useQuery({
    queryKey: ['poc', 'detail', id],
    queryFn: ({ signal }) => callApi(pocApi.detail, { id }, { signal }) as Promise<Poc>,
    enabled: id !== '',
  });

  const done = async () => {
    await queryClient.invalidateQueries({ queryKey: ['poc'] });
    await queryClient.invalidateQueries({ queryKey: ['related'] });
    await queryClient.invalidateQueries({ queryKey: ['lookup'] });
    tabs.close(normalizePath(location.pathname));
    navigate(permissions.pages.has(detailPath) ? `${detailPath}?id=${encodeURIComponent(id)}` : listLocation);
  };

  return (
    <Card title={poc.data ? t('poc.replaceTitle', { pocNo: poc.data.pocNo }) : t('poc.actions.replace')}>
      {poc.isLoading && <Spin />}
      {poc.error && <Alert type="error" showIcon title={errorText(t, poc.error)} />}
      {poc.data && (
        <Descriptions
          bordered
          size="small"
          column={2}
          style={{ maxWidth: 760, marginBottom: 24 }}
          data-testid="poc-replace-current"
          items={[
            { key: 'pocNo', label: t('poc.fields.pocNo'), children: poc.data.pocNo },
            { key: 'devAddr', label: t('poc.currentMeter'), children: poc.data.devAddr },
            { key: 'consumer', label: t('poc.fields.consumerName'), children: poc.data.consumerName },
            { key: 'grid', label: t('poc.fields.gridName'), children: poc.data.gridName },
          ]}
        />
      )}
      {poc.data && (
        <div style={{ maxWidth: 760 }}>
          <OperationForm
            operation={pocApi.replace}
            fields={FIELDS}
            prepare={(values) => ({ ...values, id })}
            onSaved={done}
            submitLabel="poc.actions.replace"
            doneMessage="poc.replaced"
            submitTestId="poc-replace-submit"
            testId="poc-replace-form"
          />
        </div>
      )}
    </Card>
  );
}
