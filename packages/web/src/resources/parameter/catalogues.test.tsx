import { EVENT_DEFINITION_RES, eventDefinitionApi, OBIS_RES, obisApi } from '@meterdesk/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fail, ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

const id = (n: number) => n.toString(16).padStart(32, '0');
const page = (list: unknown[]) => ({ list, total: list.length, curPage: 1, pageSize: 10 });
const times = { createTime: '2026-01-01T00:00:00.000Z', updateTime: '2026-01-02T00:00:00.000Z' };
const voltage = {
  id: id(1),
  obis: '1-0:32.7.0.255',
  classId: 3,
  attribute: 2,
  description: 'Instantaneous voltage L1',
  unit: 35,
  scaler: -1,
  cgName: 'voltageL1',
  channelOption: true,
  thresholdOption: false,
  settingChannel: false,
  displayOption: true,
  readInstantly: true,
  readPeriodically: false,
  rateDataType: '',
  commonConfig: false,
  ...times,
};
const powerDown = {
  id: id(2),
  code: 1,
  name: 'Power down',
  description: '',
  level: 'severe',
  parentId: null,
  parentCode: null,
  parentName: null,
  analyticalWay: '',
  cumulativeNumber: 0,
  ...times,
};

/** The form item of a field: its label, input and error messages (within a dialog, when given). */
function formItem(testId: string, within: HTMLElement = document.body): HTMLElement {
  const item = within.querySelector(`[data-testid="${testId}"]`)?.closest('.ant-form-item');
  if (!(item instanceof HTMLElement)) throw new Error(`no form item around ${testId}`);
  return item;
}

describe('OBIS management', () => {
  it('lists the flags as yes/no tags and the unit by its name', async () => {
    stubApi({ [obisApi.list.path]: () => ok(page([voltage])) });
    renderInShell(permittedTree([OBIS_RES.page]), OBIS_RES.page);
    const row = (await screen.findByText('1-0:32.7.0.255')).closest('tr') as HTMLElement;
    expect(within(row).getByText('V (35)')).toBeTruthy();
    expect(within(row).getAllByText('Yes')[0]?.closest('.ant-tag')).toBeTruthy();
    expect(within(row).getAllByText('No')[0]?.closest('.ant-tag')).toBeTruthy();
    // Adding needs addObis: a reader gets no Add button.
    expect(screen.queryByTestId('crud-add')).toBeNull();
  });

  it('adds on addObis: a malformed code is refused before anything is sent, then the item is saved', async () => {
    const api = stubApi({
      [obisApi.list.path]: () => ok(page([])),
      [obisApi.check.path]: () => ok({ existed: false }),
      [obisApi.save.path]: () => ok({ id: id(3) }),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree([OBIS_RES.page, OBIS_RES.add]), OBIS_RES.page);
    await user.click(await screen.findByTestId('crud-add'));
    await user.type(await screen.findByTestId('field-obis'), '1-0:256.8.0.255');
    await user.type(screen.getByTestId('field-classId'), '3');
    await user.type(screen.getByTestId('field-attribute'), '2');
    await user.type(screen.getByTestId('field-description'), 'Active energy');
    await user.type(screen.getByTestId('field-cgName'), 'energy_1');
    await user.click(screen.getByTestId('field-readInstantly'));
    await user.click(screen.getByTestId('crud-save'));
    await waitFor(() =>
      expect(
        within(formItem('field-obis')).getByText('Please enter an OBIS code as A-B:C.D.E.F, each part 0-255'),
      ).toBeTruthy(),
    );
    expect(api.callsTo(obisApi.save.path)).toHaveLength(0);

    await user.clear(screen.getByTestId('field-obis'));
    await user.type(screen.getByTestId('field-obis'), '1-0:1.8.5.255');
    await user.click(screen.getByTestId('crud-save'));
    await waitFor(() => expect(api.callsTo(obisApi.save.path)).toHaveLength(1));
    expect(api.callsTo(obisApi.save.path)[0]?.body).toMatchObject({
      obis: '1-0:1.8.5.255',
      classId: 3,
      attribute: 2,
      unit: 255,
      scaler: 0,
      cgName: 'energy_1',
      readInstantly: true,
      readPeriodically: false,
    });
  });
});

describe('event definitions', () => {
  const EVENT = EVENT_DEFINITION_RES.page;

  it('adds and edits in a dialog only with the save button', async () => {
    stubApi({ [eventDefinitionApi.list.path]: () => ok(page([powerDown])) });
    renderInShell(permittedTree([EVENT]), EVENT);
    await screen.findByText('Power down');
    expect(screen.queryByTestId('crud-add')).toBeNull();
    expect(screen.queryByTestId(`row-edit-${id(2)}`)).toBeNull();
  });

  it('saves a new definition from the dialog and shows a taken name on its field', async () => {
    const issues = [
      {
        field: 'name',
        key: 'existed',
        message: 'Event name existed',
        params: { label: 'eventDefinition.fields.name' },
      },
    ];
    const api = stubApi({
      [eventDefinitionApi.list.path]: () => ok(page([powerDown])),
      [eventDefinitionApi.options.path]: () => ok({ list: [{ id: id(2), label: '1 · Power down' }], more: false }),
      [eventDefinitionApi.save.path]: (body) =>
        body.name === 'Power down' ? fail(409, 'existed', { issues }) : ok({ id: id(4) }),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree([EVENT, EVENT_DEFINITION_RES.add]), EVENT);
    await user.click(await screen.findByTestId('crud-add'));
    const dialog = await screen.findByTestId('eventDefinition-form');
    await user.type(within(dialog).getByTestId('field-code'), '70');
    await user.type(within(dialog).getByTestId('field-name'), 'Power down');
    await user.click(within(dialog).getByTestId('field-level'));
    await user.click(await screen.findByTitle('Medium'));
    await user.click(within(dialog).getByTestId('crud-save'));
    await waitFor(() => expect(within(formItem('field-name', dialog)).getByText('Event name existed')).toBeTruthy());

    await user.clear(within(dialog).getByTestId('field-name'));
    await user.type(within(dialog).getByTestId('field-name'), 'Phase loss');
    await user.click(within(dialog).getByTestId('crud-save'));
    await waitFor(() => expect(screen.queryByTestId('eventDefinition-form')).toBeNull());
    expect(api.callsTo(eventDefinitionApi.save.path).at(-1)?.body).toEqual({
      code: 70,
      name: 'Phase loss',
      level: 'medium',
      parentId: null,
      analyticalWay: '',
      cumulativeNumber: 0,
      description: '',
    });
  });
});
