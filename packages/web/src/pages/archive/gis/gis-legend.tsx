import { METER_STATUSES } from '@meterdesk/contracts';
import { Flex, Typography } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import {
  CONSUMER_STYLE,
  DARK_METER_STYLE,
  DCU_STYLE,
  KIND_COLORS,
  meterStyle,
  OUTAGE_AREA_COLOR,
  OUTAGE_CLUSTER_COLOR,
  outageAreaFill,
  type PointStyle,
  PROTECTED_STYLE,
} from './gis-style';

/** A marker as the map draws it, so the legend cannot drift from the map. */
function Swatch({ style }: { style: PointStyle }) {
  const size = 2 * (style.radius + style.weight);
  return (
    <svg width={size} height={size} aria-hidden style={{ flex: 'none' }}>
      <circle
        cx={size / 2}
        cy={size / 2}
        r={style.radius}
        fill={style.fillColor}
        fillOpacity={0.9}
        stroke={style.color}
        strokeWidth={style.weight}
      />
    </svg>
  );
}

function Entry({ swatch, children, testId }: { swatch: ReactNode; children: ReactNode; testId?: string }) {
  return (
    <Flex align="center" gap={6} data-testid={testId}>
      <Flex justify="center" style={{ width: 30 }}>
        {swatch}
      </Flex>
      <span>{children}</span>
    </Flex>
  );
}

/** A cluster's disc, as the map draws it. */
const clusterSwatch = (background: string, className = '') => (
  <span
    className={`gis-cluster-disc ${className}`.trim()}
    style={{ width: 22, height: 22, fontSize: 10, borderWidth: 2, background }}
  >
    9
  </span>
);

const OUTAGE_AREA_SWATCH = (
  <svg width={24} height={24} aria-hidden style={{ flex: 'none' }}>
    <circle
      cx={12}
      cy={12}
      r={10}
      fill={OUTAGE_CLUSTER_COLOR}
      fillOpacity={outageAreaFill(true)}
      stroke={OUTAGE_AREA_COLOR}
      strokeWidth={2}
      strokeDasharray="4 3"
    />
  </svg>
);

/** What each colour and size on the map means, in the user's language; the outage layer's marks while it is on. */
export function GisLegend({ outages = false }: { outages?: boolean }) {
  const { t } = useTranslation();
  return (
    <Flex vertical gap={2} data-testid="gis-legend" style={{ fontSize: 12 }}>
      <Typography.Text strong>{t('gis.legend.meters')}</Typography.Text>
      {METER_STATUSES.map((status) => (
        <Entry key={status} swatch={<Swatch style={meterStyle(status)} />} testId={`gis-legend-meter-${status}`}>
          {t(`meter.statuses.${status}`)}
        </Entry>
      ))}
      <Typography.Text strong style={{ marginTop: 6 }}>
        {t('gis.legend.title')}
      </Typography.Text>
      <Entry swatch={<Swatch style={CONSUMER_STYLE} />}>{t('gis.kind.consumer')}</Entry>
      <Entry swatch={<Swatch style={PROTECTED_STYLE} />} testId="gis-legend-protected">
        {t('gis.popup.protected')}
      </Entry>
      <Entry swatch={<Swatch style={DCU_STYLE} />}>{t('gis.kind.dcu')}</Entry>
      <Entry swatch={clusterSwatch(KIND_COLORS.meter)}>{t('gis.legend.cluster')}</Entry>
      {outages && (
        <>
          <Typography.Text strong style={{ marginTop: 6 }}>
            {t('outage.legend.title')}
          </Typography.Text>
          <Entry swatch={<Swatch style={DARK_METER_STYLE} />} testId="gis-legend-outage-meter">
            {t('outage.legend.meter')}
          </Entry>
          <Entry swatch={clusterSwatch(OUTAGE_CLUSTER_COLOR, 'gis-outage-cluster')}>{t('outage.legend.cluster')}</Entry>
          <Entry swatch={OUTAGE_AREA_SWATCH}>{t('outage.legend.area')}</Entry>
        </>
      )}
    </Flex>
  );
}
