import type { LocaleMessages } from '../en';

export const grid: LocaleMessages['grid'] = {
  fields: {
    gridCode: '电网编码',
    gridName: '电网名称',
    gridType: '类型',
    parentId: '上级节点',
    parentName: '上级节点',
    capacity: '容量 (kVA)',
    primaryPocId: '总表计量点',
    primaryPocNo: '总表计量点',
    remark: '备注',
    createTime: '创建时间',
    updateTime: '更新时间',
  },
  types: {
    0: '区域',
    1: '变电站',
    2: '馈线',
    3: '台区',
  },
  help: {
    capacity: '仅台区填写',
    primaryPocId: '仅台区填写：本台区下性质为总表的计量点（请先保存台区并添加其计量点）',
  },
  actions: {
    addChild: '新增下级',
  },
  exportName: '电网',
};
