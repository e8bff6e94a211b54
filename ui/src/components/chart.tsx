/** A time series chart (uPlot, canvas): x = time, one line per series. */
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';

export interface Series { label: string; values: Array<number | null> }

const COLOURS = ['#3b82f6', '#ef4444', '#10b981', '#f59e0b', '#8b5cf6', '#ec4899', '#14b8a6', '#f97316', '#6366f1', '#84cc16', '#06b6d4', '#a855f7'];

export function TimeChart({ title, times, series, percent, span }: { title: string; times: number[]; series: Series[]; percent?: boolean; span: [number, number] }) {
  const box = useRef<HTMLDivElement>(null);
  const dark = useDarkScheme();
  useEffect(() => {
    const el = box.current!;
    const width = () => Math.max(el.clientWidth, 300);
    // The canvas needs a real colour: the theme's text colour, as computed.
    const ink = getComputedStyle(el).color;
    const plot = new uPlot({
      width: width(),
      height: 260,
      scales: { x: { time: true, range: () => span }, y: percent ? { range: [0, 100] } : { auto: true } },
      axes: [{ stroke: ink, grid: { stroke: 'rgba(128,128,128,0.2)' } }, { stroke: ink, grid: { stroke: 'rgba(128,128,128,0.2)' }, values: percent ? (_u, v) => v.map((x) => `${x}%`) : undefined }],
      series: [{}, ...series.map((s, i) => ({ label: s.label, stroke: COLOURS[i % COLOURS.length], width: 2, points: { size: 5 } }))],
    }, [times, ...series.map((s) => s.values)] as uPlot.AlignedData, el);
    const ro = new ResizeObserver(() => plot.setSize({ width: width(), height: 260 }));
    ro.observe(el);
    return () => (ro.disconnect(), plot.destroy());
  }, [times, series, percent, span[0], span[1], dark]);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div ref={box} role="img" aria-label={`${title}: ${times.length} data points`} />
    </figure>
  );
}

/** Whether the system asks for dark colours (the chart is redrawn when that changes). */
function useDarkScheme(): boolean {
  const query = matchMedia('(prefers-color-scheme: dark)');
  const [dark, setDark] = useState(query.matches);
  useEffect(() => {
    const changed = () => setDark(query.matches);
    query.addEventListener('change', changed);
    return () => query.removeEventListener('change', changed);
  }, []);
  return dark;
}
