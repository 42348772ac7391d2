import { html } from 'htm/preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { timeRange } from './time-range.js';

/**
 * Each message's sentiment over time (points) and the window average the profile computes: the mean
 * of the latest `windowSize` messages at each point, so the line ends at the profile's
 * avg_sentiment. `points` are chronological: { t: seconds, sentiment }.
 */
export function SentimentChart({ points, windowSize, summary }) {
  const box = useRef(null);
  useEffect(() => {
    // The element itself, not the ref: the resize callback may run after the ref was cleared.
    const el = box.current;
    if (!el || points.length === 0) return undefined;
    const xs = points.map((p) => p.t);
    const ys = points.map((p) => p.sentiment);
    const avg = ys.map((_, i) => {
      const from = Math.max(0, i + 1 - windowSize);
      const w = ys.slice(from, i + 1);
      return w.reduce((a, b) => a + b, 0) / w.length;
    });
    const width = () => Math.max(280, el.clientWidth);
    const plot = new uPlot(
      {
        width: width(),
        height: 260,
        scales: {
          y: { range: [-1, 1] },
          x: { time: true, range: (_, min, max) => timeRange(min, max) },
        },
        axes: [{}, { values: (_, ticks) => ticks.map((v) => v.toFixed(1)) }],
        series: [
          {},
          {
            label: 'Message sentiment',
            stroke: '#1f5fbf',
            width: 0,
            points: { show: true, size: 8, fill: '#1f5fbf' },
            value: (_, v) => (v == null ? '—' : v.toFixed(2)),
          },
          {
            label: `Window average (last ${windowSize} messages)`,
            stroke: '#b3261e',
            width: 2,
            points: { show: false },
            value: (_, v) => (v == null ? '—' : v.toFixed(2)),
          },
        ],
      },
      [xs, ys, avg],
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 260 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [points, windowSize]);
  // The canvas is an image to a screen reader: the summary says what it shows.
  return html`<figure class="chart">
    <div ref=${box} role="img" aria-label=${summary}></div>
    <figcaption>${summary}</figcaption>
  </figure>`;
}
