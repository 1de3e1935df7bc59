import type { LocaleMessages } from '../en';

export const module: LocaleMessages['module'] = {
  fields: {
    moduleNo: '模块编号',
    deviceType: '设备类型',
    workingMode: '工作模式',
    commAddress: '通信地址',
    simNo: 'SIM 卡号',
    gridId: '所属电网',
    gridName: '所属电网',
    devAddr: '电表表号',
    remark: '备注',
    createTime: '创建时间',
    updateTime: '更新时间',
  },
  deviceTypes: {
    0: '电表',
    1: '集中器',
    2: '电表（载波模块）',
    3: '集中器模块（路由芯片）',
    4: '4G 芯片',
    5: '载波芯片',
  },
  workingModes: { client: '客户端', server: '服务端', webService: 'Web 服务' },
  exportName: '通信模块',
};
