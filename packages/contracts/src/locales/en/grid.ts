export const grid = {
  fields: {
    gridCode: 'Grid code',
    gridName: 'Grid name',
    gridType: 'Type',
    parentId: 'Parent node',
    parentName: 'Parent node',
    capacity: 'Capacity (kVA)',
    primaryPocId: 'Primary-table POC',
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
    primaryPocId:
      'Transformer areas only: a POC of nature primary table placed in this area (save the area and add its POCs first)',
  },
  actions: {
    addChild: 'Add child',
  },
  exportName: 'Power grid',
};
