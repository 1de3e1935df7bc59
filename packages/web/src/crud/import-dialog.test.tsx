import { type ImportStatus, supplierImportApi } from '@meterdesk/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App } from 'antd';
import { describe, expect, it, vi } from 'vitest';
import '@/locales/screen-texts';
import { ok, type StubAnswer, stubApi } from '@/test/api-stub';
import { ImportDialog } from './import-dialog';

/** The broker's feed, played by the test: each job's `progress/{jobId}` handlers. */
const feeds = vi.hoisted(() => new Map<string, { onMessage(payload: string): void }>());
vi.mock('@/app/live/broker-topics', () => ({
  followTopic: (topicOf: (config: { topics: Record<string, string> }) => string, handlers: never) => {
    feeds.set(topicOf({ topics: {} }), handlers);
    return () => undefined;
  },
}));

const id = (n: number) => n.toString(16).padStart(32, 'e');
const failed: ImportStatus = {
  importId: id(1),
  jobId: 'job-1',
  state: 'failed',
  fileName: 'bad.xlsx',
  total: 3,
  done: 3,
  imported: 0,
  errorCount: 1,
  errors: [{ line: 3, column: 'Supplier name', columnLetter: 'B', code: 'mandatory', cause: '' }],
};

function renderDialog() {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <App>
        <ImportDialog calls={supplierImportApi} title="Import" onClose={() => undefined} queryKey={['supplier']} />
      </App>
    </QueryClientProvider>,
  );
  const user = userEvent.setup();
  const upload = async (name: string) => {
    const input = document.querySelector('input[type=file]');
    if (!(input instanceof HTMLInputElement)) throw new Error('no file input');
    await user.upload(input, new File(['x'], name, { type: 'application/octet-stream' }));
  };
  return { user, upload };
}

describe('import dialog', () => {
  it('follows another file from its own start, not from where the last one ended', async () => {
    const jobs = [
      { importId: id(1), jobId: 'job-1' },
      { importId: id(2), jobId: 'job-2' },
    ];
    stubApi({
      [supplierImportApi.import.path]: () => ok(jobs.shift()),
      // The second import's status has not come back yet.
      [supplierImportApi.importStatus.path]: (body) =>
        body.importId === id(1) ? ok(failed) : new Promise<StubAnswer>(() => undefined),
    });
    const { user, upload } = renderDialog();

    await upload('bad.xlsx');
    await waitFor(() => expect(feeds.has('progress/job-1')).toBe(true));
    act(() => feeds.get('progress/job-1')?.onMessage(JSON.stringify({ done: 3, total: 3 })));
    expect(await screen.findByTestId('import-failed')).toBeTruthy();
    // The bad cell's column by the header the file gave it, and its letter there.
    expect(screen.getByTestId('import-errors').textContent).toContain('B · Supplier name');

    await user.click(screen.getByTestId('import-again'));
    await upload('good.xlsx');
    const progress = await screen.findByTestId('import-progress');
    expect(screen.queryByTestId('import-failed')).toBeNull();
    expect(within(progress).getByRole('progressbar').getAttribute('aria-valuenow')).toBe('0');
    expect(progress.textContent).toContain('Waiting to start…');
    expect(progress.textContent).toContain('0 of 0 rows');
  });

  it('keeps the bar of a done import full, and names the rows it wrote', async () => {
    const done: ImportStatus = { ...failed, state: 'done', imported: 3, errorCount: 0, errors: [] };
    stubApi({
      [supplierImportApi.import.path]: () => ok({ importId: id(1), jobId: 'job-1' }),
      [supplierImportApi.importStatus.path]: () => ok(done),
    });
    render(
      <QueryClientProvider client={new QueryClient()}>
        <App>
          <ImportDialog calls={supplierImportApi} title="Import" onClose={() => undefined} queryKey={['supplier']} />
        </App>
      </QueryClientProvider>,
    );
    const input = document.querySelector('input[type=file]');
    if (!(input instanceof HTMLInputElement)) throw new Error('no file input');
    await userEvent.setup().upload(input, new File(['x'], 'good.xlsx', { type: 'application/octet-stream' }));

    expect((await screen.findByTestId('import-done')).textContent).toBe('Rows imported: 3');
    const progress = screen.getByTestId('import-progress');
    expect(within(progress).getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100');
    expect(progress.textContent).toContain('Done');
    expect(progress.textContent).toContain('3 of 3 rows');
  });

  it('shows the pass the pushed rows belong to: checked first, then written from the start again', async () => {
    stubApi({
      [supplierImportApi.import.path]: () => ok({ importId: id(3), jobId: 'job-3' }),
      // The status is slow to answer: the pushes alone move the dialog.
      [supplierImportApi.importStatus.path]: () => new Promise<StubAnswer>(() => undefined),
    });
    const { upload } = renderDialog();
    await upload('meters.xlsx');
    await waitFor(() => expect(feeds.has('progress/job-3')).toBe(true));
    const feed = feeds.get('progress/job-3');
    act(() => feed?.onMessage(JSON.stringify({ done: 4, total: 4, state: 'checking' })));
    const progress = await screen.findByTestId('import-progress');
    expect(progress.textContent).toContain('Checking every row…');
    expect(progress.textContent).toContain('4 of 4 rows');
    // One bar over both passes, so it never runs backwards: checking fills its first half.
    expect(within(progress).getByRole('progressbar').getAttribute('aria-valuenow')).toBe('50');
    act(() => feed?.onMessage(JSON.stringify({ done: 1, total: 4, state: 'writing' })));
    expect(progress.textContent).toContain('Writing…');
    expect(progress.textContent).toContain('1 of 4 rows');
    expect(within(progress).getByRole('progressbar').getAttribute('aria-valuenow')).toBe('63');
    // The push that says done may come before the status does: the bar is full, not back at half.
    act(() => feed?.onMessage(JSON.stringify({ done: 4, total: 4, state: 'done' })));
    expect(within(progress).getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100');
  });
});
