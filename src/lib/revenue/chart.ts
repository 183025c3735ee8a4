// The report's bar chart as SVG text, drawn by Apache ECharts' server-side SVG renderer
// (no browser, no canvas, no native module). Only `revenue report` loads this module, by a
// dynamic import: ECharts is the largest thing it brings, and no other run needs it
// (docs/development.md, "Startup").
//
// ECharts is used through its documented tree-shaking entry points (echarts/core,
// /charts, /components, /renderers): only the bar chart, its grid and the SVG renderer.
import { BarChart } from 'echarts/charts';
import { GridComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import { Decimal } from '../money.js';

echarts.use([BarChart, GridComponent, SVGRenderer]);

export type Bar = { label: string; value: string };

/**
 * Bars of `bars` (decimal strings) as an SVG document `width` × `height`. A bar's height
 * is a length on the page, so the value is carried as a JavaScript number to the renderer;
 * the exact figures are in the tables beside it. No animation, no interactivity: the SVG is
 * a picture, the same on screen and on paper.
 */
export function barChartSvg(bars: Bar[], o: { width: number; height: number; color: string }): string {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: o.width, height: o.height });
  try {
    chart.setOption({
      animation: false,
      textStyle: { fontFamily: 'system-ui, sans-serif' },
      // Room for the axis labels (the longest value label is about 10 characters).
      grid: { left: 80, right: 16, top: 16, bottom: bars.length > 12 ? 64 : 32 },
      xAxis: { type: 'category', data: bars.map((b) => b.label), axisTick: { alignWithLabel: true }, axisLabel: { interval: 0, rotate: bars.length > 12 ? 45 : 0 } },
      yAxis: { type: 'value', axisLabel: { formatter: (v: number) => v.toLocaleString('en-US') } },
      series: [{ type: 'bar', data: bars.map((b) => new Decimal(b.value).toNumber()), itemStyle: { color: o.color }, barMaxWidth: 48 }],
    });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}
