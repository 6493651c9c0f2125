/** A structural stand-in for ECharts' option type (keeps `echarts` out of the main chunk). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type EChartsOption = Record<string, any>;
