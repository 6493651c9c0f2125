import ReactEChartsCore from 'echarts-for-react/esm/core';
import * as echarts from 'echarts/core';
import { BarChart, LineChart, PieChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent, DataZoomComponent } from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';
import { useRef } from 'react';
import { useComputedColorScheme } from '@mantine/core';
import type { EChartsOption } from './types';

/** Canvas text cannot inherit CSS fonts: the same system stack as the page. */
const CHART_FONT = "-apple-system, 'Segoe UI', Roboto, Arial, 'PingFang SC', 'Microsoft YaHei', 'Noto Sans CJK SC', 'WenQuanYi Micro Hei', sans-serif";

echarts.use([BarChart, LineChart, PieChart, GridComponent, LegendComponent, TooltipComponent, DataZoomComponent, CanvasRenderer]);

/**
 * ECharts on a canvas. Tooltips render as rich text on the canvas (renderMode "richText"): the
 * default HTML tooltips carry style attributes, which the page's CSP refuses.
 */
export default function EChart({ option, className, label }: { option: EChartsOption; className?: string; label: string }) {
  const scheme = useComputedColorScheme('light');
  const holder = useRef<HTMLDivElement>(null);
  const dark = scheme === 'dark';
  const text = dark ? '#c9c9c9' : '#495057';
  const grid = dark ? '#373a40' : '#e9ecef';
  const themed: EChartsOption = {
    backgroundColor: 'transparent',
    textStyle: { color: text, fontFamily: CHART_FONT },
    color: ['#12b886', '#fa5252', '#4c6ef5', '#fab005', '#7950f2', '#15aabf', '#fd7e14', '#e64980', '#82c91e', '#868e96'],
    animationDuration: 300,
    ...option,
    tooltip: option.tooltip ? { renderMode: 'richText', ...option.tooltip } : undefined,
  };
  for (const axisKey of ['xAxis', 'yAxis'] as const) {
    const axis = themed[axisKey];
    if (axis && !Array.isArray(axis)) {
      const own = axis as { axisLabel?: object };
      themed[axisKey] = {
        axisLine: { lineStyle: { color: grid } },
        splitLine: { lineStyle: { color: grid } },
        ...axis,
        axisLabel: { color: text, ...own.axisLabel },
      };
    }
  }
  if (themed.legend && !Array.isArray(themed.legend)) themed.legend = { textStyle: { color: text }, ...themed.legend };
  return (
    <div role="img" aria-label={label} className={className ?? 'pp-chart'} ref={holder}>
      <ReactEChartsCore
        echarts={echarts}
        option={themed}
        notMerge
        lazyUpdate
        style={{ width: '100%', height: '100%' }}
        opts={{ renderer: 'canvas' }}
        // The chart is reachable from its element as \`pennypostChart\` (what the canvas shows can be read back: e2e tests, debugging).
        onChartReady={(chart: unknown) => holder.current && Object.defineProperty(holder.current, 'pennypostChart', { value: chart, configurable: true })}
      />
    </div>
  );
}
