import { BellOutlined } from '@ant-design/icons';
import { noticeApi, RES } from '@meterdesk/contracts';
import { useQuery } from '@tanstack/react-query';
import { Badge, Button } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { callApi } from '@/api/api-client';
import { usePermissions } from '@/app/permissions/permission-context';

/** Until the MQTT push arrives (a later issue) the count is polled. */
const POLL_MS = 60_000;

function UnreadNotices() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const unread = useQuery({
    queryKey: ['unreadNotices'],
    queryFn: ({ signal }) => callApi(noticeApi.countunreadnoticenum, {}, { signal }),
    refetchInterval: POLL_MS,
  });
  return (
    <Badge count={unread.data?.count ?? 0} size="small" offset={[-4, 4]}>
      <Button
        type="text"
        shape="circle"
        icon={<BellOutlined />}
        aria-label={t('shell.notices')}
        data-testid="notice-badge"
        onClick={() => navigate(RES.notifyMGT)}
      />
    </Badge>
  );
}

/** Shown only to users with the subscribe permission (spec §6). */
export function NoticeBadge() {
  const permissions = usePermissions();
  return permissions.buttons.has(RES.noticeSubscribe) ? <UnreadNotices /> : null;
}
