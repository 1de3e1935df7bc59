import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

const PAGE = '/parameterSetting/supplier';
const empty = { list: [], total: 0, curPage: 1, pageSize: 10 };

describe('supplier import from the list', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('uploads the file, follows the check and lists every bad row with its line and translated cause', async () => {
    let polls = 0;
    const api = stubApi({
      '/supplier/list': () => ok(empty),
      '/supplier/import': () => ok({ importId: 'a'.repeat(32), jobId: 'job-1' }),
      '/supplier/importstatus': () => {
        polls++;
        const base = { importId: 'a'.repeat(32), jobId: 'job-1', fileName: 's.xlsx', total: 3, imported: 0 };
        if (polls === 1) return ok({ ...base, state: 'checking', done: 1, errorCount: 0, errors: [] });
        return ok({
          ...base,
          state: 'failed',
          done: 3,
          errorCount: 1,
          errors: [
            {
              line: 3,
              column: 'Supplier code',
              columnLetter: 'A',
              code: 'codeFormat',
              cause: 'Only letters and digits are allowed: A B',
            },
          ],
        });
      },
    });
    renderInShell(permittedTree([PAGE, `${PAGE}/import`]), PAGE);
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('crud-import'));
    const dialog = await screen.findByTestId('import-dialog');
    const input = dialog.querySelector('input[type=file]') as HTMLInputElement;
    await user.upload(input, new File(['xlsx'], 'suppliers.xlsx'));

    const upload = api.callsTo('/supplier/import')[0]!;
    expect(upload.init.body).toBeInstanceOf(File);
    expect((upload.init.headers as Record<string, string>)['X-File-Name']).toBe('suppliers.xlsx');
    expect((await screen.findByTestId('import-failed', {}, { timeout: 8000 })).textContent).toContain(
      'problems found: 1.',
    );
    const errors = screen.getByTestId('import-errors');
    expect(within(errors).getByText('3')).toBeTruthy();
    expect(within(errors).getByText('Only letters and digits are allowed: A B')).toBeTruthy();
  }, 15_000);

  it('shows no Import button without the import resource', async () => {
    stubApi({ '/supplier/list': () => ok(empty) });
    renderInShell(permittedTree([PAGE]), PAGE);
    await screen.findByTestId('crud-refresh');
    await waitFor(() => expect(screen.queryByTestId('crud-add')).toBeNull());
    expect(screen.queryByTestId('crud-import')).toBeNull();
  });
});
