/** Both time chart kinds in one chunk: they share most of Recharts and their parts, so a page loads them once. */
export { default as TimeSeriesChart } from './time-series-chart';
export { default as StackedAreaChart } from './stacked-area-chart';
