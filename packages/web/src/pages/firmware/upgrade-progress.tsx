import {
  CheckCircleFilled,
  ClockCircleOutlined,
  CloseCircleFilled,
  ReloadOutlined,
  SyncOutlined,
} from '@ant-design/icons';
import { UPGRADE_PROGRESS, type UpgradeProgress } from '@meterdesk/contracts';
import { Tag } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

const LOOK: Record<UpgradeProgress, { key: string; color: string; icon: ReactNode }> = {
  [UPGRADE_PROGRESS.waiting]: { key: 'waiting', color: 'default', icon: <ClockCircleOutlined /> },
  [UPGRADE_PROGRESS.done]: { key: 'done', color: 'success', icon: <CheckCircleFilled /> },
  [UPGRADE_PROGRESS.inProgress]: { key: 'inProgress', color: 'processing', icon: <SyncOutlined spin /> },
  [UPGRADE_PROGRESS.refresh]: { key: 'refresh', color: 'warning', icon: <ReloadOutlined /> },
  [UPGRADE_PROGRESS.failed]: { key: 'failed', color: 'error', icon: <CloseCircleFilled /> },
};

/**
 * spec §4's upgrade progress icons: empty waiting, 00 done, 66 in progress, 88 refresh, 99 failed.
 * Test id `upgrade-progress-<device>`, its code in `data-progress` (empty while waiting).
 */
export function UpgradeProgressIcon({ progress, device }: { progress: UpgradeProgress; device: string }) {
  const { t } = useTranslation();
  const look = LOOK[progress];
  return (
    <Tag
      color={look.color}
      icon={look.icon}
      data-testid={`upgrade-progress-${device}`}
      data-progress={progress}
      title={t(`firmware.progressIcons.${look.key}`)}
    >
      {t(`firmware.progressIcons.${look.key}`)}
    </Tag>
  );
}
