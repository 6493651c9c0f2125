/** A structural stand-in for ECharts' option type (keeps `echarts` out of the main chunk). */
export type EChartsOption = Record<string, unknown>;
