import {
  COMMON_OBIS,
  DLMS_UNITS,
  type Operation,
  obisFromDotted,
  RES,
  settingsApi,
  unitSymbol,
} from '@meterdesk/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Card, Flex, Input, InputNumber, Spin, Switch, Table } from 'antd';
import type { TFunction } from 'i18next';
import { type ReactNode, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { z } from 'zod';
import { ApiError, callApi } from '@/api/api-client';
import { usePermissions } from '@/app/permissions/permission-context';
import { describeRequest, type FieldDescriptor } from '@/crud/crud-config';
import { zodIssueText } from '@/crud/form-errors';
import { OperationForm } from '@/crud/operation-form';
import { errorText, messageText } from '@/i18n/message-text';
import { useLanguage } from '@/i18n/use-language';

const SETTINGS = 'settings';

function SettingsCard({
  name,
  loading,
  error,
  children,
}: {
  name: string;
  loading: boolean;
  error: unknown;
  children: ReactNode;
}) {
  const { t } = useTranslation();
  return (
    <Card title={t(`settings.${name}.title`)} data-testid={`settings-${name}`} style={{ flex: '1 1 460px' }}>
      {loading && <Spin />}
      {error ? <Alert type="error" showIcon title={errorText(t, error)} /> : null}
      {!loading && !error && children}
    </Card>
  );
}

const SMTP_FIELDS = describeRequest(settingsApi.savesmtpconf, 'settings.smtp.fields');

// `sendFailure` says what went wrong as a message key in `data.reason`; without it the answer is plain.
const SendFailureSchema = z.object({ reason: z.string() });

function testFailureText(t: TFunction, error: unknown): string {
  const failure = error instanceof ApiError ? SendFailureSchema.safeParse(error.data) : undefined;
  return failure?.success
    ? t('settings.smtp.testFailed', { reason: messageText(t, failure.data.reason) })
    : errorText(t, error);
}

function SmtpSettings({ canSave }: { canSave: boolean }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [to, setTo] = useState('');
  const smtp = useQuery({
    queryKey: [SETTINGS, 'smtp'],
    queryFn: ({ signal }) => callApi(settingsApi.getsmtpconf, {}, { signal }),
  });
  const initialValues = useMemo(() => {
    if (!smtp.data) return { port: 25, username: '', secure: false };
    const { passwordSet: _, ...stored } = smtp.data;
    return stored;
  }, [smtp.data]);
  // A stored password is never sent back: left blank, the field keeps it.
  const fields = useMemo(
    () =>
      SMTP_FIELDS.map((field) =>
        field.key === 'password' && smtp.data?.passwordSet ? { ...field, help: 'settings.smtp.passwordKept' } : field,
      ),
    [smtp.data],
  );
  const test = useMutation({
    mutationFn: (body: { to?: string }) => callApi(settingsApi.checkifcansendemail, body),
    onSuccess: (data) => message.success(t('settings.smtp.testSent', { to: data.to })),
    onError: (error) => message.error(testFailureText(t, error)),
  });
  const sendTest = () => {
    const parsed = settingsApi.checkifcansendemail.request.safeParse({ to: to.trim() || undefined });
    if (parsed.success) test.mutate(parsed.data);
    else
      message.error(parsed.error.issues[0] ? zodIssueText(t, parsed.error.issues[0]) : messageText(t, 'invalidValue'));
  };

  return (
    <SettingsCard name="smtp" loading={smtp.isLoading} error={smtp.error}>
      <OperationForm
        operation={settingsApi.savesmtpconf}
        fields={fields}
        initialValues={initialValues}
        prepare={({ password, ...values }) => (password ? { ...values, password } : values)}
        onSaved={() => queryClient.invalidateQueries({ queryKey: [SETTINGS, 'smtp'] })}
        canSave={canSave}
        submitTestId="settings-save-smtp"
      />
      <Flex gap="small">
        <Input
          value={to}
          onChange={(event) => setTo(event.target.value)}
          placeholder={t('settings.smtp.testTo')}
          data-testid="settings-test-email-to"
        />
        <Button loading={test.isPending} onClick={sendTest} data-testid="settings-test-email">
          {t('settings.smtp.test')}
        </Button>
      </Flex>
    </SettingsCard>
  );
}

const SUBSCRIBE_FIELDS = describeRequest(settingsApi.updatesysUsersubscribeconf, 'settings.subscribe.fields');

/** The caller's own flags: any logged-in user may change them. */
function SubscribeSettings() {
  const queryClient = useQueryClient();
  const flags = useQuery({
    queryKey: [SETTINGS, 'subscribe'],
    queryFn: ({ signal }) => callApi(settingsApi.getsysusersubscribeconf, {}, { signal }),
  });
  return (
    <SettingsCard name="subscribe" loading={flags.isLoading} error={flags.error}>
      <OperationForm
        operation={settingsApi.updatesysUsersubscribeconf}
        fields={SUBSCRIBE_FIELDS}
        initialValues={flags.data}
        onSaved={() => queryClient.invalidateQueries({ queryKey: [SETTINGS, 'subscribe'] })}
        submitTestId="settings-save-subscribe"
      />
    </SettingsCard>
  );
}

type DataItem = { id: string; enabled: boolean; orderNum: number };

/**
 * A data item's unit is the OBIS catalogue's, the one its readings are stored and shown in (energy in
 * Wh, power in W); data items name their object in the dotted form.
 */
const CATALOGUE_UNITS = new Map(COMMON_OBIS.map((item) => [item.obis, unitSymbol(DLMS_UNITS[item.unit])]));
const catalogueUnit = (dotted: string) => CATALOGUE_UNITS.get(obisFromDotted(dotted)) ?? '';

function DataItemSettings({ canSave }: { canSave: boolean }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const language = useLanguage();
  const queryClient = useQueryClient();
  const [edits, setEdits] = useState<Record<string, Partial<DataItem>>>({});
  const items = useQuery({
    queryKey: [SETTINGS, 'dataItems'],
    queryFn: ({ signal }) => callApi(settingsApi.listdataitemconf, {}, { signal }),
  });
  const rows = useMemo(() => (items.data ?? []).map((item) => ({ ...item, ...edits[item.id] })), [items.data, edits]);
  const edit = (id: string, patch: Partial<DataItem>) =>
    setEdits((current) => ({ ...current, [id]: { ...current[id], ...patch } }));
  const save = useMutation({
    mutationFn: () =>
      callApi(settingsApi.savedataitemconf, {
        items: rows.map(({ id, enabled, orderNum }) => ({ id, enabled, orderNum })),
      }),
    onSuccess: async () => {
      message.success(t('crud.saved'));
      await queryClient.invalidateQueries({ queryKey: [SETTINGS, 'dataItems'] });
      setEdits({});
    },
    onError: (error) => message.error(errorText(t, error)),
  });

  return (
    <SettingsCard name="dataItems" loading={items.isLoading} error={items.error}>
      <Table
        size="small"
        rowKey="id"
        dataSource={rows}
        pagination={false}
        scroll={{ y: 360 }}
        columns={[
          {
            key: 'itemName',
            title: t('settings.dataItems.itemName'),
            render: (_, item) => (language === 'zh' ? item.itemName : item.itemNameEn) || item.itemName,
          },
          { key: 'obis', dataIndex: 'obis', title: t('settings.dataItems.obis') },
          {
            key: 'unit',
            title: t('settings.dataItems.unit'),
            width: 80,
            render: (_, item) => catalogueUnit(item.obis),
          },
          {
            key: 'enabled',
            title: t('settings.dataItems.enabled'),
            width: 90,
            render: (_, item) => (
              <Switch
                size="small"
                checked={item.enabled}
                disabled={!canSave}
                data-testid={`data-item-enabled-${item.id}`}
                onChange={(enabled) => edit(item.id, { enabled })}
              />
            ),
          },
          {
            key: 'orderNum',
            title: t('settings.dataItems.orderNum'),
            width: 110,
            render: (_, item) => (
              <InputNumber
                size="small"
                min={0}
                max={9999}
                precision={0}
                value={item.orderNum}
                disabled={!canSave}
                data-testid={`data-item-order-${item.id}`}
                onChange={(orderNum) => edit(item.id, { orderNum: orderNum ?? 0 })}
              />
            ),
          },
        ]}
      />
      {canSave && (
        <Button
          type="primary"
          style={{ marginTop: 16 }}
          loading={save.isPending}
          disabled={rows.length === 0}
          onClick={() => save.mutate()}
          data-testid="settings-save-dataItems"
        >
          {t('common.actions.save')}
        </Button>
      )}
    </SettingsCard>
  );
}

const TARIFF_FIELDS = describeRequest(settingsApi.savetariffconfig, 'settings.tariff.fields');

/** One set of limits: created by the first save, updated after. */
function TariffSettings({ canSave }: { canSave: boolean }) {
  const queryClient = useQueryClient();
  const limits = useQuery({
    queryKey: [SETTINGS, 'tariff'],
    queryFn: ({ signal }) => callApi(settingsApi.gettariffconfiglist, {}, { signal }),
  });
  const stored = limits.data?.[0];
  return (
    <SettingsCard name="tariff" loading={limits.isLoading} error={limits.error}>
      <OperationForm
        operation={stored ? settingsApi.updatetariffconfig : settingsApi.savetariffconfig}
        fields={TARIFF_FIELDS}
        initialValues={stored}
        prepare={(values) => (stored ? { ...values, id: stored.id } : values)}
        onSaved={() => queryClient.invalidateQueries({ queryKey: [SETTINGS, 'tariff'] })}
        canSave={canSave}
        submitTestId="settings-save-tariff"
      />
    </SettingsCard>
  );
}

const TIMEOUT_FIELDS = describeRequest(settingsApi.updatetimeout, 'settings.timeout.fields');
const LOG_RETENTION_FIELDS = describeRequest(settingsApi.updatelogretention, 'settings.logRetention.fields');
const READINGS_RETENTION_FIELDS = describeRequest(
  settingsApi.updatereadingsretention,
  'settings.readingsRetention.fields',
);

/** A card of one stored value: read by `read`, saved by `save`, its form from the save call's request. */
function ValueSettings({
  name,
  read,
  save,
  fields,
  canSave,
  submitTestId,
}: {
  name: string;
  read: Operation;
  save: Operation;
  fields: readonly FieldDescriptor[];
  canSave: boolean;
  submitTestId: string;
}) {
  const queryClient = useQueryClient();
  const stored = useQuery({
    queryKey: [SETTINGS, name],
    queryFn: ({ signal }) => callApi(read, {}, { signal }),
  });
  return (
    <SettingsCard name={name} loading={stored.isLoading} error={stored.error}>
      <OperationForm
        operation={save}
        fields={fields}
        initialValues={stored.data as Record<string, unknown> | undefined}
        onSaved={() => queryClient.invalidateQueries({ queryKey: [SETTINGS, name] })}
        canSave={canSave}
        submitTestId={submitTestId}
      />
    </SettingsCard>
  );
}

/** Every form of the page, for the locale test. */
export const SETTINGS_FIELDS = [
  SMTP_FIELDS,
  SUBSCRIBE_FIELDS,
  TARIFF_FIELDS,
  TIMEOUT_FIELDS,
  LOG_RETENTION_FIELDS,
  READINGS_RETENTION_FIELDS,
];

export function SystemSettingsPage() {
  const permissions = usePermissions();
  const canSave = permissions.buttons.has(RES.settingsSave);
  return (
    <Flex wrap gap="middle" align="start" data-testid="system-settings">
      <SmtpSettings canSave={canSave} />
      <SubscribeSettings />
      <TariffSettings canSave={canSave} />
      <ValueSettings
        name="timeout"
        read={settingsApi.gettimeout}
        save={settingsApi.updatetimeout}
        fields={TIMEOUT_FIELDS}
        canSave={canSave}
        submitTestId="settings-save-timeout"
      />
      <ValueSettings
        name="logRetention"
        read={settingsApi.getlogretention}
        save={settingsApi.updatelogretention}
        fields={LOG_RETENTION_FIELDS}
        canSave={canSave}
        submitTestId="settings-save-log-retention"
      />
      <ValueSettings
        name="readingsRetention"
        read={settingsApi.getreadingsretention}
        save={settingsApi.updatereadingsretention}
        fields={READINGS_RETENTION_FIELDS}
        canSave={canSave}
        submitTestId="settings-save-readings-retention"
      />
      <DataItemSettings canSave={canSave} />
    </Flex>
  );
}
