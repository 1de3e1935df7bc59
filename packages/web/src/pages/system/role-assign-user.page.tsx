import { roleApi, roleEntity, userApi } from '@meterdesk/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Card, Flex, Spin, Transfer } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import { callApi } from '@/api/api-client';
import { normalizePath } from '@/app/routing/route-table';
import { useTabStore } from '@/app/tabs/tabs-context';
import { useListLocation } from '@/crud/use-list-location';
import { errorText } from '@/i18n/message-text';

/** Who has a role: every user on the left, the role's users on the right; saving replaces the list. */
export function RoleAssignUserPage() {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const location = useLocation();
  const queryClient = useQueryClient();
  const tabs = useTabStore();
  const listLocation = useListLocation(roleEntity.pagePath);
  const [params] = useSearchParams();
  const roleId = params.get('id') ?? '';
  const [chosen, setChosen] = useState<string[] | null>(null);

  const role = useQuery({
    queryKey: ['role', 'detail', roleId],
    queryFn: ({ signal }) => callApi(roleApi.getsysroledetail, { id: roleId }, { signal }),
    enabled: roleId !== '',
  });
  const users = useQuery({
    queryKey: ['user', 'simple'],
    queryFn: ({ signal }) => callApi(userApi.getsimplesysuserlist, {}, { signal }),
  });
  const targetKeys = chosen ?? role.data?.userIdList ?? [];

  const save = useMutation({
    mutationFn: () => callApi(roleApi.saveuserrole, { roleId, userIdList: targetKeys }),
    onSuccess: async () => {
      message.success(t('crud.saved'));
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: ['role'] }),
        queryClient.invalidateQueries({ queryKey: ['user'] }),
      ]);
      tabs.close(normalizePath(location.pathname));
      navigate(listLocation);
    },
    onError: (error) => message.error(errorText(t, error)),
  });

  const error = role.error ?? users.error;
  return (
    <Card title={role.data ? t('role.assign.title', { roleName: role.data.roleName }) : t('role.actions.assignUser')}>
      {(role.isLoading || users.isLoading) && <Spin />}
      {error && <Alert type="error" showIcon title={errorText(t, error)} />}
      {role.data && users.data && (
        <Flex vertical gap="middle">
          <div data-testid="role-assign-transfer">
            <Transfer
              dataSource={users.data.map((user) => ({ key: user.id, ...user }))}
              targetKeys={targetKeys}
              onChange={(keys) => setChosen(keys.map(String))}
              titles={[t('role.assign.available'), t('role.assign.assigned')]}
              showSearch
              filterOption={(input, item) =>
                `${item.username} ${item.fullName}`.toLowerCase().includes(input.trim().toLowerCase())
              }
              render={(item) => (
                <span data-testid={`transfer-item-${item.username}`}>
                  {item.fullName ? `${item.fullName} (${item.username})` : item.username}
                </span>
              )}
              styles={{ section: { width: 340, height: 440 } }}
            />
          </div>
          <Flex gap="small">
            <Button
              type="primary"
              loading={save.isPending}
              data-testid="role-assign-save"
              onClick={() => save.mutate()}
            >
              {t('common.actions.save')}
            </Button>
            <Button data-testid="role-assign-cancel" onClick={() => navigate(listLocation)}>
              {t('common.actions.cancel')}
            </Button>
          </Flex>
        </Flex>
      )}
    </Card>
  );
}
