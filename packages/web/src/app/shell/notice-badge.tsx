import { BellOutlined } from '@ant-design/icons';
import { RES } from '@meterdesk/contracts';
import { useQuery } from '@tanstack/react-query';
import { Badge, Button } from 'antd';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { fetchUnreadNoticeCount } from '@/api/pending-operations';
import { usePermissions } from '@/app/permissions/permission-context';

/** The subscribe button lives on the notices page; the badge opens that page. */
const NOTICES_PAGE = RES.noticeSubscribe.slice(0, RES.noticeSubscribe.lastIndexOf('/'));
/** Until the MQTT push arrives (a later issue) the count is polled. */
const POLL_MS = 60_000;

function UnreadNotices() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const unread = useQuery({
    queryKey: ['unreadNotices'],
    queryFn: ({ signal }) => fetchUnreadNoticeCount(signal),
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
        onClick={() => navigate(NOTICES_PAGE)}
      />
    </Badge>
  );
}

/** Shown only to users with the subscribe permission (spec §6). */
export function NoticeBadge() {
  const permissions = usePermissions();
  return permissions.buttons.has(RES.noticeSubscribe) ? <UnreadNotices /> : null;
}
