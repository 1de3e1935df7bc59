import { METER_STATUSES } from '@meterdesk/contracts';
import { Flex, Typography } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { CONSUMER_STYLE, DCU_STYLE, KIND_COLORS, meterStyle, type PointStyle, PROTECTED_STYLE } from './gis-style';

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

const CLUSTER_SWATCH = (
  <span
    className="gis-cluster-disc"
    style={{ width: 22, height: 22, fontSize: 10, borderWidth: 2, background: KIND_COLORS.meter }}
  >
    9
  </span>
);

/** What each colour and size on the map means, in the user's language. */
export function GisLegend() {
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
      <Entry swatch={CLUSTER_SWATCH}>{t('gis.legend.cluster')}</Entry>
    </Flex>
  );
}
