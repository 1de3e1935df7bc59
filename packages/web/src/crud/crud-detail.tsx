import { useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Descriptions, Flex, Spin } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate, useSearchParams } from 'react-router';
import { ApiError, callApi } from '@/api/api-client';
import { usePermissions } from '@/app/permissions/permission-context';
import { FieldValue } from '@/fields/field-value';
import { errorText } from '@/i18n/message-text';
import { useLanguage } from '@/i18n/use-language';
import { type CrudConfig, describeField, type Row, shownValue } from './crud-config';
import { useListLocation } from './use-list-location';

/** The entity's `detail` fields as a description list. */
export function CrudDetail({ crud, record }: { crud: CrudConfig; record: Row }) {
  const { t } = useTranslation();
  const language = useLanguage();
  return (
    <Descriptions
      bordered
      column={1}
      data-testid={`${crud.entity.name}-detail`}
      items={crud.entity.detail.map((key) => {
        const field = describeField(crud, key);
        return {
          key,
          label: t(field.label),
          children: <FieldValue field={field} value={shownValue(crud, record, key, language)} />,
        };
      })}
    />
  );
}

/** The `…/detail?id=` page of entities that declare one. */
export function CrudDetailPage({ crud }: { crud: CrudConfig }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const permissions = usePermissions();
  const [params] = useSearchParams();
  const id = params.get('id') ?? '';
  const listLocation = useListLocation(crud.entity.pagePath);
  const editPath = `${crud.entity.pagePath}/edit`;
  const detail = useQuery({
    queryKey: [crud.entity.name, 'detail', id],
    queryFn: ({ signal }) => {
      if (!crud.detail) throw new ApiError(404, 'wrongApi');
      return callApi(crud.detail, { id }, { signal }) as Promise<Row>;
    },
    enabled: id !== '',
  });

  return (
    <Card
      title={t('crud.detailTitle')}
      extra={
        <Flex gap="small">
          {crud.update && permissions.pages.has(editPath) && (
            <Button data-testid="crud-edit" onClick={() => navigate(`${editPath}?id=${encodeURIComponent(id)}`)}>
              {t('common.actions.edit')}
            </Button>
          )}
          <Button data-testid="crud-back" onClick={() => navigate(listLocation)}>
            {t('common.actions.back')}
          </Button>
        </Flex>
      }
    >
      {detail.isLoading && <Spin />}
      {detail.error && <Alert type="error" showIcon title={errorText(t, detail.error)} />}
      {detail.data && <CrudDetail crud={crud} record={detail.data} />}
    </Card>
  );
}
