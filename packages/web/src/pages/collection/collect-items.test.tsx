import { obisApi, PLAN_RES, templateApi } from '@meterdesk/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { applyLanguage } from '@/i18n/i18n';
import { LOOKUPS, type Lookup } from '@/resources/lookups';
import { ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';
import { TASK_ID, task, template } from '@/test/task-fixture';

const TEMPLATES = PLAN_RES.templates;
const TASKS = '/serviceRequest/scheduledTask/taskMGT';
const page = <T,>(list: T[]) => ok({ list, total: list.length, curPage: 1, pageSize: 10 });
/** Two profile objects, a register and an operator's own item the locales do not name. */
const ITEMS = ['loadProfile', 'dailyFrozen', 'activeImport', 'myItem'];
const taskTemplate = template({ items: ITEMS });
const obisItem = (n: number, obis: string, cgName: string, description: string) => ({
  id: n.toString(16).padStart(32, '0'),
  obis,
  classId: 7,
  attribute: 2,
  description,
  unit: 255,
  scaler: 0,
  cgName,
  channelOption: false,
  thresholdOption: false,
  settingChannel: false,
  displayOption: false,
  readInstantly: false,
  readPeriodically: true,
  rateDataType: '',
  commonConfig: false,
  createTime: '2026-01-01T00:00:00.000Z',
  updateTime: '2026-01-02T00:00:00.000Z',
});

afterEach(() => applyLanguage('en'));

describe('collection item names', () => {
  it.each([
    ['en', 'Load profile, Daily frozen values, Active import (+A), myItem'],
    ['zh', '负荷曲线, 日冻结数据, 正向有功 (+A), myItem'],
  ] as const)(
    'are translated in the template list, the task view and the task form (%s)',
    async (language, names) => {
      applyLanguage(language);
      stubApi({
        [templateApi.list.path]: () => page([taskTemplate]),
        '/task/detail': () => ok(task({ enabled: false, items: ITEMS })),
        '/task/check': () => ok({ existed: false }),
      });
      const templates = renderInShell(permittedTree([TEMPLATES]), TEMPLATES);
      const row = (await screen.findByText('Daily')).closest('tr') as HTMLElement;
      expect(within(row).getByText(names)).toBeTruthy();
      templates.unmount();

      const view = renderInShell(permittedTree([TASKS, PLAN_RES.taskView]), `${PLAN_RES.taskView}?id=${TASK_ID}`);
      expect(await screen.findByText(names)).toBeTruthy();
      view.unmount();

      renderInShell(permittedTree([TASKS, PLAN_RES.taskEdit]), `${PLAN_RES.taskEdit}?id=${TASK_ID}`);
      await waitFor(() => expect(screen.getByTestId('task-template-items').textContent).toContain(names));
    },
    20_000,
  );

  it('offers only the profiles a run reads: a register read periodically and an object no run reads are left out (the server refuses them)', () => {
    const lookup = LOOKUPS.collectItems as Lookup;
    const options = lookup.options(
      {
        list: [
          obisItem(1, '1-0:99.1.0.255', 'loadProfile', 'Load profile'),
          obisItem(3, '1-0:1.8.0.255', 'activeImport', 'Active energy import'),
          obisItem(4, '1-0:99.9.0.255', 'myItem', 'Own profile'),
          obisItem(5, '0-0:99.98.0.255', 'eventLog', 'Standard event log'),
        ],
      },
      'en',
    );
    expect(options.map((o) => o.value)).toEqual(['loadProfile', 'eventLog']);
  });

  it("are offered by their label in the template form, with the item's code to type", async () => {
    stubApi({
      [obisApi.list.path]: () =>
        page([
          obisItem(1, '1-0:99.1.0.255', 'loadProfile', 'Load profile 1 (15-minute interval)'),
          obisItem(2, '1-0:99.2.0.255', 'dailyFrozen', 'Daily profile'),
          obisItem(3, '1-0:1.8.0.255', 'activeImport', 'Active energy import'),
          obisItem(4, '1-0:99.9.0.255', 'myItem', 'Own profile'),
        ]),
      [templateApi.check.path]: () => ok({ existed: false }),
    });
    renderInShell(permittedTree([TEMPLATES, `${TEMPLATES}/add`]), `${TEMPLATES}/add`);
    const user = userEvent.setup();
    await user.click(await screen.findByTestId('field-items'));
    expect(await screen.findByTitle('Load profile (loadProfile, 1-0:99.1.0.255)')).toBeTruthy();
    await user.keyboard('loadProfile');
    await waitFor(() => expect(screen.queryByTitle(/dailyFrozen/)).toBeNull());
    expect(screen.getByTitle('Load profile (loadProfile, 1-0:99.1.0.255)')).toBeTruthy();
  }, 15_000);
});
