import {
  archiveApi,
  archiveResources,
  defineEntity,
  field,
  IdSchema,
  MAX_BATCH_DELETE,
  MAX_EXPORT_COLUMNS,
  type Supplier,
  supplierApi,
} from '@meterdesk/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App } from 'antd';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { applyLanguage } from '@/i18n/i18n';
import { file, ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';
import { defineArchiveCrud } from './archive-crud';
import { DELETE_REPORT_OK } from './delete-report';
import { ExportDialog } from './export-dialog';
import { CONFIRM_OK } from './row-actions';

const PAGE = '/parameterSetting/supplier';
const exportPath = String(supplierApi.export?.path);
const supplier = (n: number, over: Partial<Supplier> = {}): Supplier => ({
  id: n.toString(16).padStart(32, '0'),
  supplierCode: `S${n}`,
  supplierName: `Supplier ${n}`,
  contact: '',
  phone: '',
  address: '',
  remark: '',
  createTime: '2024-01-01T00:00:00.000Z',
  updateTime: '2024-01-02T00:00:00.000Z',
  ...over,
});
const page = (list: Supplier[], extra: object = {}) =>
  ok({ list, total: list.length, curPage: 1, pageSize: 50, ...extra });
const [first, used, third] = [supplier(1), supplier(2, { supplierCode: 'U1' }), supplier(3)] as const;

describe('archive list: batch delete', () => {
  it('deletes the selected rows after confirming the count, and lists each row that stayed with its reason', async () => {
    const api = stubApi({
      [supplierApi.list.path]: () => page([first, used, third]),
      [supplierApi.delete.path]: () =>
        ok({ deleted: 1, failures: [{ id: used.id, name: 'U1', key: 'supplierInUse' }] }),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree([PAGE, `${PAGE}/delete`]), PAGE);

    const button = await screen.findByTestId('crud-delete-selected');
    expect(button).toHaveProperty('disabled', true);
    await user.click(await screen.findByTestId(`select-${first.id}`));
    await user.click(screen.getByTestId(`select-${used.id}`));
    expect(button.textContent).toBe('Delete selected (2)');

    await user.click(button);
    expect(await screen.findAllByText('Delete the 2 selected records?')).not.toHaveLength(0);
    await user.click(screen.getByTestId(CONFIRM_OK));

    await waitFor(() => expect(api.callsTo(supplierApi.delete.path)).toHaveLength(1));
    expect(api.callsTo(supplierApi.delete.path)[0]?.body).toEqual({ ids: [first.id, used.id] });
    expect(await screen.findByText('Records deleted: 1')).toBeTruthy();
    expect(await screen.findAllByText('Records not deleted: 1')).not.toHaveLength(0);
    const failures = screen.getByTestId('delete-failures');
    expect(within(failures).getByText('U1')).toBeTruthy();
    expect(within(failures).getByText('This supplier is still used by meter types, meters or DCUs')).toBeTruthy();
    // The list is read again, and the selection is gone with the rows it named.
    await waitFor(() => expect(api.callsTo(supplierApi.list.path).length).toBeGreaterThan(1));
    expect(button.textContent).toBe('Delete selected (0)');
    await user.click(screen.getByTestId(DELETE_REPORT_OK));
  });

  it('asks about the row by its name, and reports a refused single-row delete in the same dialog', async () => {
    stubApi({
      [supplierApi.list.path]: () => page([used]),
      [supplierApi.delete.path]: () =>
        ok({ deleted: 0, failures: [{ id: used.id, name: 'U1', key: 'supplierInUse' }] }),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree([PAGE, `${PAGE}/delete`]), PAGE);

    await user.click(await screen.findByTestId(`row-delete-${used.id}`));
    expect(await screen.findAllByText('Delete U1?')).not.toHaveLength(0);
    await user.click(await screen.findByTestId(CONFIRM_OK));

    expect(await screen.findAllByText('Records not deleted: 1')).not.toHaveLength(0);
    expect(within(screen.getByTestId('delete-failures')).getByText('U1')).toBeTruthy();
  });

  it(`keeps the first ${MAX_BATCH_DELETE} rows of a larger selection`, async () => {
    const rows = Array.from({ length: MAX_BATCH_DELETE + 5 }, (_, n) => supplier(n + 1));
    stubApi({ [supplierApi.list.path]: () => page(rows) });
    const user = userEvent.setup();
    renderInShell(permittedTree([PAGE, `${PAGE}/delete`]), `${PAGE}?pageSize=50`);

    await screen.findByTestId(`select-${rows[0]?.id}`);
    const selectAll = screen.getByTestId('supplier-list').querySelector('thead input[type="checkbox"]');
    await user.click(selectAll as HTMLElement);

    expect(await screen.findByText(/^At most 30 rows can be selected at once/)).toBeTruthy();
    expect(screen.getByTestId('crud-delete-selected').textContent).toBe(`Delete selected (${MAX_BATCH_DELETE})`);
    const last = screen.getByTestId(`select-${rows[MAX_BATCH_DELETE - 1]?.id}`);
    const beyond = screen.getByTestId(`select-${rows[MAX_BATCH_DELETE]?.id}`);
    expect(last).toHaveProperty('checked', true);
    expect(beyond).toHaveProperty('checked', false);
    expect(beyond).toHaveProperty('disabled', true);
  });

  it('offers neither selection nor batch delete without the delete button', async () => {
    stubApi({ [supplierApi.list.path]: () => page([first]) });
    renderInShell(permittedTree([PAGE]), PAGE);

    await screen.findByText('S1');
    expect(screen.queryByTestId('crud-delete-selected')).toBeNull();
    expect(screen.queryByTestId(`select-${first.id}`)).toBeNull();
  });
});

describe('archive list: a list past the count cap', () => {
  const tenFrom = (start: number) => Array.from({ length: 10 }, (_, i) => supplier(start + i));

  it.each([
    ['en', 'More than 1,000 items'],
    ['zh', '超过 1,000 条'],
  ] as const)('says the total is capped (%s) and asks for the next page by its cursor', async (language, label) => {
    applyLanguage(language);
    const api = stubApi({
      [supplierApi.list.path]: (body) =>
        body.after === 'cursor-2'
          ? ok({ list: tenFrom(11), total: 1000, totalCapped: true, curPage: 2, pageSize: 10, nextCursor: 'cursor-3' })
          : ok({ list: tenFrom(1), total: 1000, totalCapped: true, curPage: 1, pageSize: 10, nextCursor: 'cursor-2' }),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree([PAGE]), PAGE);

    expect(await screen.findByText(label)).toBeTruthy();
    await user.click(screen.getByTitle('2'));
    await screen.findByText('S11');
    const calls = api.callsTo(supplierApi.list.path);
    expect(calls[0]?.body).not.toHaveProperty('after');
    expect(calls.at(-1)?.body).toMatchObject({ curPage: 2, after: 'cursor-2' });
  });
});

describe('archive list: scope', () => {
  it.each([
    ['en', 'Your account has no power grid yet; ask an administrator to add you to a user group'],
    ['zh', '您的账号尚未分配电网，请联系管理员将您加入用户组'],
  ] as const)('says why the list is empty when the account reaches no grid (%s)', async (language, hint) => {
    applyLanguage(language);
    stubApi({ [supplierApi.list.path]: () => page([], { noScope: true }) });
    renderInShell(permittedTree([PAGE]), PAGE);

    expect((await screen.findByTestId('crud-no-scope')).textContent).toContain(hint);
  });
});

describe('archive list: export dialog', () => {
  it('exports the chosen columns in the chosen format with the current filters and sort', async () => {
    vi.spyOn(URL, 'createObjectURL').mockReturnValue('blob:export');
    vi.spyOn(URL, 'revokeObjectURL').mockReturnValue(undefined);
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    const api = stubApi({
      [supplierApi.list.path]: () => page([first]),
      [exportPath]: () => file('%PDF-1.3', 'application/pdf', 'suppliers.pdf'),
    });
    const user = userEvent.setup();
    renderInShell(
      permittedTree([PAGE, `${PAGE}/export`]),
      `${PAGE}?supplierName=Hex&sortField=supplierCode&sortOrder=descend&curPage=2`,
    );

    await user.click(await screen.findByTestId('crud-export'));
    const contact = await screen.findByTestId('export-column-contact');
    expect(contact).toHaveProperty('checked', true);
    expect(contact.closest('label')?.textContent).toBe('Contact person');
    await user.click(contact);
    await user.click(screen.getByTestId('export-format-pdf'));
    expect(screen.getByText(/A PDF holds the first 5,000 rows/)).toBeTruthy();
    await user.click(screen.getByTestId('export-ok'));

    await waitFor(() => expect(api.callsTo(exportPath)).toHaveLength(1));
    expect(api.callsTo(exportPath)[0]?.body).toEqual({
      supplierName: 'Hex',
      sortField: 'supplierCode',
      sortOrder: 'descend',
      columns: ['supplierCode', 'supplierName', 'phone', 'address', 'updateTime'],
      format: 'pdf',
    });
    await waitFor(() => expect(screen.queryByTestId('export-ok')).toBeNull());
  });

  it.each([
    ['en', `At most ${MAX_EXPORT_COLUMNS} columns; ${MAX_EXPORT_COLUMNS + 1} selected`],
    ['zh', `最多 ${MAX_EXPORT_COLUMNS} 列，已选择 ${MAX_EXPORT_COLUMNS + 1} 列`],
  ] as const)('refuses more columns than the limit, naming the maximum and the count (%s)', async (language, text) => {
    applyLanguage(language);
    const api = stubApi({});
    const user = userEvent.setup();
    const wide = wideCrud();
    render(
      <QueryClientProvider client={new QueryClient()}>
        <App>
          <ExportDialog crud={wide} query={{}} onClose={() => undefined} />
        </App>
      </QueryClientProvider>,
    );

    expect((await screen.findByTestId('export-refusal')).textContent).toBe(text);
    const exportButton = screen.getByTestId('export-ok');
    expect(exportButton).toHaveProperty('disabled', true);
    await user.click(screen.getByTestId('export-column-c0'));
    expect(screen.queryByTestId('export-refusal')).toBeNull();
    expect(exportButton).toHaveProperty('disabled', false);
    expect(api.calls).toHaveLength(0);
  });
});

/** An entity whose list has one column more than an export takes. */
function wideCrud() {
  const fields: Record<string, z.ZodType> = Object.fromEntries(
    Array.from({ length: MAX_EXPORT_COLUMNS + 1 }, (_, n) => [
      `c${n}`,
      field(z.string(), { label: `Column ${n}`, widget: 'text' }),
    ]),
  );
  const entity = defineEntity({
    name: 'wide',
    record: z.object({ id: IdSchema, ...fields }) as z.ZodObject<Record<string, z.ZodType>>,
    pagePath: '/test/wide',
    columns: Object.keys(fields).map((name) => ({ field: name })),
    filters: [],
    form: [],
    detail: [],
  });
  return defineArchiveCrud({
    entity,
    api: archiveApi({
      path: 'wide',
      entity,
      create: z.strictObject({}),
      res: archiveResources(entity.pagePath),
    }) as unknown as typeof supplierApi,
  });
}
