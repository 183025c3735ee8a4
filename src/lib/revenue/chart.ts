// The report's bar chart as SVG text, drawn by Apache ECharts' server-side SVG renderer
// (no browser, no canvas, no native module). Loaded by a dynamic import from `revenue
// report` alone: ECharts is the largest thing it brings (docs/development.md, "Startup").
import { BarChart } from 'echarts/charts';
import { GridComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import { Decimal } from '../money.js';

echarts.use([BarChart, GridComponent, SVGRenderer]);

export type Bar = { label: string; value: string };

/**
 * The bars as an SVG document. A bar's height is a length on the page, so its value goes to
 * the renderer as a JavaScript number; the exact figures are in the tables beside it.
 */
export function barChartSvg(bars: Bar[], o: { width: number; height: number; color: string; unit: string }): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: o.width, height: o.height });
  try {
    chart.setOption({
      animation: false,
      textStyle: { fontFamily: 'system-ui, sans-serif' },
      // Room for the axis labels (the longest value label is about 10 characters).
      grid: { left: 80, right: 16, top: 32, bottom: bars.length > 12 ? 64 : 32 },
      xAxis: { type: 'category', data: bars.map((b) => b.label), axisTick: { alignWithLabel: true }, axisLabel: { interval: 0, rotate: bars.length > 12 ? 45 : 0 } },
      yAxis: { type: 'value', name: o.unit, axisLabel: { formatter: (v: number) => v.toLocaleString('en-US') } },
      series: [{ type: 'bar', data: bars.map((b) => new Decimal(b.value).toNumber()), itemStyle: { color: o.color }, barMaxWidth: 48 }],
    });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}
