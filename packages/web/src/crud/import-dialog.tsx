import { DownloadOutlined, InboxOutlined } from '@ant-design/icons';
import {
  IMPORT_STATES,
  type ImportError,
  type ImportStatus,
  type importApi,
  MAX_IMPORT_BYTES,
  progressTopic,
} from '@meterdesk/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Flex, Modal, Progress, Table, Upload } from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, callApi, uploadFile } from '@/api/api-client';
import { downloadFile } from '@/api/download';
import { followTopic } from '@/app/live/broker-topics';
import { errorText } from '@/i18n/message-text';

type ImportCalls = ReturnType<typeof importApi>;

/** How often the dialog asks for the status when the broker's push is not live. */
const POLL_MS = 2000;
const FINAL = new Set<ImportStatus['state']>(['done', 'failed']);

interface Pushed {
  done: number;
  total: number;
  /** The pass the rows are counted in: checked first, then written. */
  state?: ImportStatus['state'];
}

/** `{done, total, state}` of a progress message, or undefined for anything else. */
export function parseProgress(payload: Uint8Array | string): Pushed | undefined {
  try {
    const text = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
    const { done, total, state } = JSON.parse(text) as { done?: unknown; total?: unknown; state?: unknown };
    if (typeof done !== 'number' || typeof total !== 'number') return undefined;
    const known = IMPORT_STATES.find((s) => s === state);
    return known ? { done, total, state: known } : { done, total };
  } catch {
    return undefined;
  }
}

/**
 * Follows an import until it ends: the broker's `progress/{jobId}` moves the bar live, and the
 * status call (polled while the push is not live, and once at the end) brings the outcome.
 */
function useImportProgress(calls: ImportCalls, started: { importId: string; jobId: string } | null) {
  const [status, setStatus] = useState<ImportStatus | null>(null);
  const [pushed, setPushed] = useState<Pushed | null>(null);
  useEffect(() => {
    // Another file after the first starts from nothing, not from where the last one ended.
    setStatus(null);
    setPushed(null);
    if (!started) return;
    let stopped = false;
    let live = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const next = await callApi(calls.importStatus, { importId: started.importId });
        if (stopped) return;
        setStatus(next);
        if (FINAL.has(next.state)) return;
      } catch {
        // A failed poll is retried; the dialog shows the last known state meanwhile.
      }
      if (!stopped) timer = setTimeout(poll, live ? POLL_MS * 5 : POLL_MS);
    };
    const stopFeed = followTopic(() => progressTopic(started.jobId), {
      onMessage: (payload) => {
        const progress = parseProgress(payload);
        if (!progress) return;
        setPushed(progress);
        // The end is read from the status, which carries the error list.
        if (progress.state ? FINAL.has(progress.state) : progress.done >= progress.total) {
          clearTimeout(timer);
          void poll();
        }
      },
      onLive: (value) => {
        live = value;
      },
    });
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
      stopFeed();
    };
  }, [calls, started]);
  return { status, pushed };
}

/**
 * An archive import: download the template, drop an .xlsx, watch the rows being checked and
 * written, and read every bad row (line, column, code, cause) when nothing could be written.
 */
export function ImportDialog({
  calls,
  title,
  onClose,
  queryKey,
}: {
  calls: ImportCalls;
  title: string;
  onClose: () => void;
  /** The list the import adds to, refreshed when it is done. */
  queryKey: readonly unknown[];
}) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const queryClient = useQueryClient();
  const [started, setStarted] = useState<{ importId: string; jobId: string } | null>(null);
  const [uploading, setUploading] = useState(false);
  const { status, pushed } = useImportProgress(calls, started);

  const finished = status && FINAL.has(status.state) ? status : null;
  useEffect(() => {
    if (finished?.state === 'done') void queryClient.invalidateQueries({ queryKey: [...queryKey] });
  }, [finished, queryClient, queryKey]);

  const upload = async (file: File) => {
    if (file.size > MAX_IMPORT_BYTES) {
      message.error(t('errors.importFileTooLarge'));
      return;
    }
    setUploading(true);
    try {
      setStarted(await uploadFile(calls.import, file));
    } catch (error) {
      message.error(errorText(t, error instanceof ApiError ? error : new ApiError(0, 'networkError')));
    } finally {
      setUploading(false);
    }
  };

  const total = pushed?.total || status?.total || 0;
  // A push is the newest word while the broker is live; the rows count again from 0 in the writing pass.
  const state = pushed?.state ?? status?.state ?? 'queued';
  const done = finished ? total : (pushed?.done ?? status?.done ?? 0);
  // One bar over both passes, so that it never runs backwards: checking fills its first half.
  const passDone = state === 'done' ? 2 * total : state === 'writing' ? total + done : done;
  const percent = finished ? 100 : total > 0 ? Math.min(100, Math.round((passDone / (2 * total)) * 100)) : 0;

  return (
    <Modal
      open
      title={title}
      onCancel={onClose}
      footer={<Button onClick={onClose}>{t('common.actions.close')}</Button>}
      width={760}
      data-testid="import-dialog"
    >
      <Flex vertical gap={12}>
        <Button
          icon={<DownloadOutlined />}
          onClick={() => downloadFile(calls.template, {}).catch((error) => message.error(errorText(t, error)))}
          data-testid="import-template"
          style={{ alignSelf: 'flex-start' }}
        >
          {t('crud.importTemplateDownload')}
        </Button>
        {!started && (
          <Upload.Dragger
            accept=".xlsx"
            showUploadList={false}
            disabled={uploading}
            beforeUpload={(file) => {
              void upload(file);
              return false;
            }}
            data-testid="import-file"
          >
            <p className="ant-upload-drag-icon">
              <InboxOutlined />
            </p>
            <p>{t('crud.importChoose')}</p>
          </Upload.Dragger>
        )}
        {/* A done import keeps its full bar; a failed one gives the place to its bad rows. */}
        {started && finished?.state !== 'failed' && (
          <div data-testid="import-progress">
            <div>{t(`crud.importStates.${state}`)}</div>
            <Progress percent={percent} status={finished ? 'success' : 'active'} />
            <div>{t('crud.importRows', { done, total })}</div>
          </div>
        )}
        {finished?.state === 'done' && (
          <Alert
            type="success"
            showIcon
            title={t('crud.importDone', { count: finished.imported })}
            data-testid="import-done"
          />
        )}
        {finished?.state === 'failed' && <ImportErrors status={finished} />}
        {finished && (
          <Button onClick={() => setStarted(null)} data-testid="import-again" style={{ alignSelf: 'flex-start' }}>
            {t('crud.importAgain')}
          </Button>
        )}
      </Flex>
    </Modal>
  );
}

function ImportErrors({ status }: { status: ImportStatus }) {
  const { t } = useTranslation();
  return (
    <>
      <Alert
        type="error"
        showIcon
        title={t('crud.importFailed', { count: status.errorCount })}
        description={
          status.errorCount > status.errors.length
            ? t('crud.importErrorsCut', { shown: status.errors.length })
            : undefined
        }
        data-testid="import-failed"
      />
      <Table<ImportError>
        size="small"
        rowKey={(row) => `${row.line}-${row.column}-${row.code}`}
        dataSource={status.errors}
        pagination={{ pageSize: 10, showSizeChanger: false }}
        data-testid="import-errors"
        columns={[
          { key: 'line', dataIndex: 'line', title: t('crud.importLine'), width: 80 },
          {
            key: 'column',
            title: t('crud.importColumn'),
            width: 180,
            render: (_: unknown, row) => (row.columnLetter ? `${row.columnLetter} · ${row.column}` : row.column),
          },
          { key: 'code', dataIndex: 'code', title: t('crud.importCode'), width: 160 },
          {
            key: 'cause',
            title: t('crud.importCause'),
            render: (_: unknown, row) => {
              const reason = t(`errors.${row.code}`, { defaultValue: row.code });
              const value = row.cause.includes(': ') ? row.cause.slice(row.cause.indexOf(': ') + 2) : '';
              return value ? `${reason}: ${value}` : reason;
            },
          },
        ]}
      />
    </>
  );
}
