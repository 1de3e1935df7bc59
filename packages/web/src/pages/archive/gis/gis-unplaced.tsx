import { type GisFound, type GisUnplaced, gisFindApi, meterEntity } from '@meterdesk/contracts';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Alert, Button, Drawer, Table, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { callApi } from '@/api/api-client';
import { usePermissions } from '@/app/permissions/permission-context';
import { errorText } from '@/i18n/message-text';
import { PlacementTag } from './gis-search';

const PAGE_SIZE = 10;
const METER_DETAIL = `${meterEntity.pagePath}/detail`;

/**
 * The meters the map cannot place by coordinates of their own, under its filters (grid node, meter
 * status): a count on the map (test id `gis-unplaced`, hidden when none) opening their list, each
 * shown at its approximate place when it has one, so no meter is silently missing from the map.
 */
export function GisUnplacedMeters({
  filters,
  onShow,
}: {
  filters: Pick<GisUnplaced, 'gridId' | 'meterStatus'>;
  onShow: (found: GisFound) => void;
}) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const permissions = usePermissions();
  const [open, setOpen] = useState(false);
  const [curPage, setCurPage] = useState(1);
  const request = { ...filters, pageSize: PAGE_SIZE, curPage: open ? curPage : 1 };
  const unplaced = useQuery({
    queryKey: ['gis', 'unplaced', request],
    queryFn: ({ signal }) => callApi(gisFindApi.unplaced, request, { signal }),
    placeholderData: keepPreviousData,
  });
  const total = unplaced.data?.total ?? 0;
  // The count as shown ('1000+' when capped); the total picks the plural form.
  const count = unplaced.data?.totalCapped ? `${total}+` : String(total);
  if (!open && total === 0) return null;
  return (
    <>
      <Button size="small" type="link" data-testid="gis-unplaced" onClick={() => setOpen(true)}>
        {t('liveState.unplaced.button', { count: total, shown: count })}
      </Button>
      <Drawer
        open={open}
        onClose={() => setOpen(false)}
        title={t('liveState.unplaced.title')}
        size={560}
        destroyOnHidden
        data-testid="gis-unplaced-drawer"
      >
        <Typography.Paragraph type="secondary">{t('liveState.unplaced.hint')}</Typography.Paragraph>
        {unplaced.error ? (
          <Alert type="error" showIcon title={errorText(t, unplaced.error)} />
        ) : (
          <Table<GisFound>
            data-testid="gis-unplaced-list"
            rowKey="id"
            size="small"
            loading={unplaced.isFetching}
            dataSource={unplaced.data?.list ?? []}
            pagination={{
              current: curPage,
              pageSize: PAGE_SIZE,
              total,
              showSizeChanger: false,
              onChange: setCurPage,
            }}
            columns={[
              { key: 'label', title: t('meter.fields.devAddr'), dataIndex: 'label' },
              {
                key: 'placement',
                title: t('liveState.unplaced.place'),
                render: (_, found) => <PlacementTag found={found} />,
              },
              {
                key: 'actions',
                title: t('crud.columnsActions'),
                render: (_, found) => (
                  <>
                    {found.placement && (
                      <Button
                        type="link"
                        size="small"
                        data-testid={`gis-unplaced-show-${found.label}`}
                        onClick={() => {
                          setOpen(false);
                          onShow(found);
                        }}
                      >
                        {t('liveState.unplaced.show')}
                      </Button>
                    )}
                    {permissions.pages.has(METER_DETAIL) && (
                      <Button
                        type="link"
                        size="small"
                        onClick={() => navigate(`${METER_DETAIL}?id=${encodeURIComponent(found.id)}`)}
                      >
                        {t('gis.popup.openDetail')}
                      </Button>
                    )}
                  </>
                ),
              },
            ]}
          />
        )}
      </Drawer>
    </>
  );
}
