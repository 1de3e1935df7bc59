export const eventDefinition = {
  fields: {
    code: 'Event code',
    name: 'Event name',
    description: 'Description',
    level: 'Level',
    parentId: 'Higher-level event',
    parentCode: 'Higher-level event code',
    parentName: 'Higher-level event',
    analyticalWay: 'Analytical way',
    cumulativeNumber: 'Cumulative number',
    createTime: 'Created',
    updateTime: 'Updated',
  },
  levels: { regular: 'Regular', medium: 'Medium', severe: 'Severe' },
  help: { parentId: 'Another event this one rolls up into; none for a top-level event' },
  exportName: 'Event definitions',
};
