export const grid = {
  fields: {
    gridCode: 'Grid code',
    gridName: 'Grid name',
    gridType: 'Type',
    parentId: 'Parent node',
    parentName: 'Parent node',
    capacity: 'Capacity (kVA)',
    primaryPocNo: 'Primary-table POC',
    remark: 'Remark',
    createTime: 'Created',
    updateTime: 'Updated',
  },
  types: {
    0: 'Region',
    1: 'Substation',
    2: 'Feeder',
    3: 'Transformer area',
  },
  help: {
    capacity: 'Transformer areas only',
    primaryPocNo: 'Transformer areas only: the number of a POC of nature primary table placed in this area',
  },
  actions: {
    addChild: 'Add child',
  },
  exportName: 'Power grid',
};
