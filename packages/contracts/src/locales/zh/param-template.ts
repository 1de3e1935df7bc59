import type { LocaleMessages } from '../en';

export const paramTemplate: LocaleMessages['paramTemplate'] = {
  fields: {
    templateName: '模板名称',
    meterTypeId: '表型',
    meterTypeName: '表型',
    items: '参数',
    itemCount: '参数数',
    remark: '备注',
    createdBy: '创建人',
    createTime: '创建时间',
    updateTime: '更新时间',
    obis: 'OBIS 项',
    description: '描述',
    value: '值（原始）',
    scaler: '换算系数',
    unit: '单位',
    shown: '值',
  },
  help: {
    items: '标记为设置通道的 OBIS 项及其在电表中的原始值：显示值为 原始值 × 10^换算系数，单位如目录所记',
  },
  actions: { apply: '应用到电表' },
  editor: {
    add: '添加参数',
    remove: '删除',
    chooseItem: '选择 OBIS 项',
    scaledAs: '× 10^{{scaler}} {{unit}}',
    listHint: 'OBIS 编码',
    timeHint: 'HH:mm',
  },
  exportName: '参数模板',
};
