import {
  meterTypeApi,
  OBIS,
  obisApi,
  PARAM_TEMPLATE_RES,
  type ParamTemplate,
  paramTemplateApi,
} from '@meterdesk/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

const id = (n: number) => n.toString(16).padStart(32, 'a');
const times = { createTime: '2026-01-01T00:00:00.000Z', updateTime: '2026-01-02T00:00:00.000Z' };
const template: ParamTemplate = {
  id: id(1),
  templateName: 'Household PLC standard',
  meterTypeId: id(2),
  meterTypeName: 'NM-S100 single-phase PLC',
  items: [
    {
      obis: OBIS.demandPeriod,
      value: 900,
      description: 'Demand integration period',
      scaler: 0,
      unit: 's',
      shown: '900 s',
    },
    {
      obis: OBIS.voltageSwellThreshold,
      value: 2530,
      description: 'Threshold for voltage swell',
      scaler: -1,
      unit: 'V',
      shown: '253 V',
    },
  ],
  itemCount: 2,
  remark: '',
  createdBy: 'admin',
  ...times,
};
const catalogueItem = (obis: string, over: object) => ({
  id: id(obis.length),
  obis,
  attribute: 2,
  description: obis,
  scaler: 0,
  unit: 255,
  cgName: obis.replace(/\W/g, '_'),
  channelOption: false,
  thresholdOption: false,
  settingChannel: true,
  displayOption: false,
  readInstantly: false,
  readPeriodically: false,
  rateDataType: '',
  commonConfig: false,
  ...times,
  ...over,
});

describe('parameter templates', () => {
  it('shows each item of the detail with the catalogue’s unit and scaler, and the value scaled', async () => {
    stubApi({ [paramTemplateApi.detail.path]: () => ok(template) });
    renderInShell(permittedTree([PARAM_TEMPLATE_RES.detail]), `${PARAM_TEMPLATE_RES.detail}?id=${id(1)}`);
    const table = await screen.findByTestId('items-items');
    const rows = within(table)
      .getAllByRole('row')
      .map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent));
    expect(rows).toEqual([
      ['OBIS item', 'Description', 'Value (raw)', 'Scaler', 'Unit', 'Value'],
      [OBIS.demandPeriod, 'Demand integration period', '900', '0', 's', '900 s'],
      [OBIS.voltageSwellThreshold, 'Threshold for voltage swell', '2530', '-1', 'V', '253 V'],
    ]);
    expect(within(screen.getByTestId('paramTemplate-detail')).getByText('NM-S100 single-phase PLC')).toBeTruthy();
  });

  it('adds in a dialog with the save button: a threshold asked as a whole number beside its scale and unit', async () => {
    const api = stubApi({
      [paramTemplateApi.list.path]: () => ok({ list: [template], total: 1, curPage: 1, pageSize: 10 }),
      [paramTemplateApi.check.path]: () => ok({ existed: false }),
      [paramTemplateApi.save.path]: () => ok({ id: id(3) }),
      [meterTypeApi.options.path]: () =>
        ok({ list: [{ id: id(2), label: 'NM-S100 · Najd', supplierId: id(4) }], more: false }),
      [obisApi.list.path]: () =>
        ok({
          list: [
            catalogueItem(OBIS.voltageSwellThreshold, { classId: 3, unit: 35, scaler: -1, description: 'Swell' }),
            // Read only: not offered.
            catalogueItem(OBIS.activeImport, { classId: 3, unit: 30, settingChannel: false, description: 'Energy' }),
          ],
          total: 2,
          curPage: 1,
          pageSize: 1000,
        }),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree([PARAM_TEMPLATE_RES.page, PARAM_TEMPLATE_RES.add]), PARAM_TEMPLATE_RES.page);
    await user.click(await screen.findByTestId('crud-add'));
    const dialog = await screen.findByTestId('paramTemplate-form');
    await user.type(within(dialog).getByTestId('field-templateName'), 'Swell guard');
    fireEvent.mouseDown(
      within(within(dialog).getByTestId('field-meterTypeId').closest('.ant-select') as HTMLElement).getByRole(
        'combobox',
      ),
    );
    await user.click(await screen.findByTitle('NM-S100 · Najd'));
    fireEvent.mouseDown(
      within(within(dialog).getByTestId('param-obis-0').closest('.ant-select') as HTMLElement).getByRole('combobox'),
    );
    expect(screen.queryByTitle(`${OBIS.activeImport} Energy`)).toBeNull();
    await user.click(await screen.findByTitle(`${OBIS.voltageSwellThreshold} Swell`));
    const value = await within(dialog).findByTestId('param-value-0');
    expect(within(dialog).getByText('× 10^-1 V')).toBeTruthy();
    await user.type(value, '2530');
    await user.click(within(dialog).getByTestId('crud-save'));
    await waitFor(() => expect(api.callsTo(paramTemplateApi.save.path)).toHaveLength(1));
    expect(api.callsTo(paramTemplateApi.save.path)[0]?.body).toEqual({
      templateName: 'Swell guard',
      meterTypeId: id(2),
      items: [{ obis: OBIS.voltageSwellThreshold, value: 2530 }],
      remark: '',
    });
  });
});
