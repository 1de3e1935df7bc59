import { analyticsMonthlyPages } from './analytics-monthly';

/** The data analytics pages built on the analytics kit: shared texts, then one block per page. */
export const analytics = {
  period: 'Period',
  day: 'Day',
  month: 'Month',
  summary: 'Summary',
  chart: 'Chart',
  noData: 'No data for this period',
  chartFailed: 'The chart could not be loaded',
  openDetail: 'Detail',
  pickFromList: 'Open a meter from the list to see its detail',
  backToList: 'Back to the list',
  fields: {
    gridId: 'Grid node',
    gridName: 'Grid node',
    dcuId: 'DCU',
    dcuNo: 'DCU',
    meterId: 'Meter',
    devAddr: 'Meter SN',
    consumerType: 'Consumer type',
    day: 'Day',
    month: 'Month',
  },
  consumption: {
    title: 'Consumption data',
    detailTitle: 'Daily consumption of meter {{name}}',
    fields: {
      consumption: 'Consumption (kWh)',
      daysKnown: 'Days with data',
      dailyAverage: 'Daily average (kWh)',
      demandMin: 'Lowest demand (kW)',
      demandAvg: 'Average demand (kW)',
      demandMax: 'Highest demand (kW)',
      intervals: 'Intervals read',
      meters: 'Meters',
      peakDay: 'Highest day',
    },
  },
  consumptionDetail: { title: 'Daily consumption' },
  ...analyticsMonthlyPages,
};
