import { BellOutlined } from '@ant-design/icons';
import { noticeApi, noticeEntity, RES } from '@meterdesk/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge, Button } from 'antd';
import { createContext, useContext, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { callApi } from '@/api/api-client';
import { mqttUnreadFeed, UNREAD_QUERY_KEY, type UnreadFeed } from '@/app/notices/unread-feed';
import { usePermissions } from '@/app/permissions/permission-context';

/** Only while the broker pushes nothing (none configured, or the connection is down). */
const POLL_MS = 60_000;

const UnreadFeedContext = createContext<UnreadFeed>(mqttUnreadFeed);
/** Tests hand the badge a feed of their own instead of a broker. */
export const UnreadFeedProvider = UnreadFeedContext.Provider;

function UnreadNotices({ username }: { username: string }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const feed = useContext(UnreadFeedContext);
  const [live, setLive] = useState(false);
  const unread = useQuery({
    queryKey: UNREAD_QUERY_KEY,
    queryFn: ({ signal }) => callApi(noticeApi.countunreadnoticenum, {}, { signal }),
    refetchInterval: live ? false : POLL_MS,
  });

  useEffect(
    () =>
      feed(username, {
        onCount: (count) => {
          queryClient.setQueryData(UNREAD_QUERY_KEY, { count });
          // A new count means a notice arrived or was read: an open notice list shows it too.
          void queryClient.invalidateQueries({ queryKey: [noticeEntity.name, 'list'] });
        },
        onLive: (next) => {
          setLive(next);
          // A count published before the subscription took hold would be lost otherwise.
          if (next) void queryClient.invalidateQueries({ queryKey: UNREAD_QUERY_KEY });
        },
      }),
    [feed, username, queryClient],
  );

  const count = unread.data?.count ?? 0;
  return (
    // The badge's text is the count alone (the button has none); data-count holds it even when 0 hides it.
    <Badge count={count} size="small" offset={[-4, 4]} data-testid="notice-badge-count" data-count={count}>
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
export function NoticeBadge({ username }: { username: string }) {
  const permissions = usePermissions();
  return permissions.buttons.has(RES.noticeSubscribe) ? <UnreadNotices username={username} /> : null;
}
