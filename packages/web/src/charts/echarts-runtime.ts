import { BarChart, LineChart, ScatterChart } from 'echarts/charts';
import {
  DataZoomComponent,
  GridComponent,
  LegendComponent,
  MarkLineComponent,
  TitleComponent,
  TooltipComponent,
} from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import { PRINT_THEME, THEME_NAME } from './theme';

/*
 * The only module that imports ECharts, and only through `echarts/core` with the parts the pages
 * use: it loads as its own lazy chunk when the first chart is drawn, so the login page and the
 * dashboard's first paint never carry it. SVG draws crisp on paper and in a PDF print of the page.
 */
echarts.use([
  BarChart,
  LineChart,
  ScatterChart,
  GridComponent,
  TooltipComponent,
  LegendComponent,
  DataZoomComponent,
  MarkLineComponent,
  TitleComponent,
  SVGRenderer,
]);
echarts.registerTheme(THEME_NAME, PRINT_THEME);

export { echarts };
