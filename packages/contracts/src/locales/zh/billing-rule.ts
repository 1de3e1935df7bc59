import type { LocaleMessages } from '../en';

export const billingRule: LocaleMessages['billingRule'] = {
  fields: {
    ruleNo: '规则编号',
    ruleName: '规则名称',
    gridId: '电网',
    gridName: '电网',
    handlingFee: '手续费',
    taxes: '税率（%）',
    roundingBase: '舍入基数',
    chargeMode: '计费方式',
    fixedAmount: '固定金额',
    percentage: '百分比（%）',
    mainMeterId: '总表',
    mainDevAddr: '总表',
    tenantMeterIds: '租户电表',
    tenantDevAddrs: '租户电表',
    tenantCount: '租户数',
    solarMeterIds: '光伏电表',
    solarDevAddrs: '光伏电表',
    solarCount: '光伏电表数',
    remark: '备注',
    createTime: '创建时间',
    updateTime: '更新时间',
  },
  help: {
    fixedAmount: '计费方式为固定金额时，每张账单收取',
    percentage: '计费方式为百分比时，按电费金额的百分比收取',
    roundingBase: '账单金额按其整数倍舍入，例如 0.01',
  },
  chargeModes: { fixed: '固定金额', percentage: '百分比' },
  exportName: '计费规则',
};

export const virtualMeter: LocaleMessages['virtualMeter'] = {
  fields: { meterId: '成员电表', channel: '寄存器', sign: '符号' },
  channels: { activeImport: '正向有功', activeExport: '反向有功' },
  signs: { '1': '加 (+)', '-1': '减 (−)' },
  title: '虚拟表成员',
  tag: '虚拟',
  help: '本表的读数由成员表计算：各成员的寄存器相加或相减；任一成员缺少某时段或某日的数据时，该时段或日为空缺。',
  add: '添加成员',
  remove: '移除',
  saved: '成员已保存',
};
