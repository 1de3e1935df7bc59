export const paramTemplate = {
  fields: {
    templateName: 'Template name',
    meterTypeId: 'Meter type',
    meterTypeName: 'Meter type',
    items: 'Parameters',
    itemCount: 'Parameter count',
    remark: 'Remark',
    createdBy: 'Created by',
    createTime: 'Created',
    updateTime: 'Updated',
    obis: 'OBIS item',
    description: 'Description',
    value: 'Value (raw)',
    scaler: 'Scaler',
    unit: 'Unit',
    shown: 'Value',
  },
  help: {
    items:
      'OBIS items flagged setting channel, each with its raw value as the meter holds it: the value reads as raw × 10^scaler in the unit',
  },
  actions: { apply: 'Apply to meters' },
  editor: {
    add: 'Add parameter',
    remove: 'Remove',
    chooseItem: 'Choose an OBIS item',
    scaledAs: '× 10^{{scaler}} {{unit}}',
    listHint: 'OBIS codes',
    timeHint: 'HH:mm',
  },
  exportName: 'Parameter templates',
};
