import {
  consumerEntity,
  dcuEntity,
  type GisKind,
  type GisPoint,
  meterEntity,
  type Placement,
} from '@meterdesk/contracts';
import { Button, Descriptions, Flex, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { usePermissions } from '@/app/permissions/permission-context';
import { PlacementTag } from './gis-search';

/** A point the map shows; a found meter without coordinates of its own says where it was placed instead. */
export type ShownPoint = GisPoint & { placement?: Placement | null };

const DETAIL_PAGES: Record<GisKind, string> = {
  meter: `${meterEntity.pagePath}/detail`,
  consumer: `${consumerEntity.pagePath}/detail`,
  dcu: `${dcuEntity.pagePath}/detail`,
};

function Status({ point }: { point: GisPoint }) {
  const { t } = useTranslation();
  if (point.kind === 'meter') return t(`meter.statuses.${point.status}`);
  return point.status === 1 ? (
    <Tag color="red" data-testid="gis-popup-protected">
      {t('gis.popup.protected')}
    </Tag>
  ) : (
    t('gis.popup.regular')
  );
}

/**
 * What a point's popup says: its business key, kind and state, and the way to its detail page,
 * which opens in the shell's tab like any page (offered only to a user who may open it).
 */
export function GisPopup({ point }: { point: ShownPoint }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const permissions = usePermissions();
  const detail = DETAIL_PAGES[point.kind];
  return (
    <Flex vertical gap={6} data-testid="gis-popup">
      <Typography.Text strong copyable data-testid="gis-popup-label">
        {point.label}
      </Typography.Text>
      {point.placement && <PlacementTag found={{ placement: point.placement }} />}
      <Descriptions
        size="small"
        column={1}
        items={[
          { key: 'kind', label: t('gis.popup.kind'), children: t(`gis.kind.${point.kind}`) },
          ...(point.kind === 'dcu'
            ? []
            : [{ key: 'status', label: t('gis.popup.status'), children: <Status point={point} /> }]),
        ]}
      />
      {permissions.pages.has(detail) && (
        <Button
          type="link"
          style={{ padding: 0, alignSelf: 'flex-start' }}
          onClick={() => navigate(`${detail}?id=${encodeURIComponent(point.id)}`)}
          data-testid="gis-popup-detail"
        >
          {t('gis.popup.openDetail')}
        </Button>
      )}
    </Flex>
  );
}
