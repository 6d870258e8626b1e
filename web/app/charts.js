/**
 * Charts with Chart.js (served from node_modules under /vendor), loaded on first use.
 * A chart spec comes from results.js: `{type, labels, datasets: [{label, data}], horizontal?, label, unit?}` (type bar or line;
 * unit: the one unit of its values, e.g. EUR, titles the value axis).
 */
import { formatNumber } from './format.js';

const PALETTE = ['#2563eb', '#f59e0b', '#0d9488', '#dc2626', '#7c3aed', '#0891b2'];

let loading;

/** Chart.js with every controller, scale and plugin registered (once). */
export function loadChartJs() {
  loading ??= import('../vendor/chart.js').then(({ Chart, registerables }) => {
    Chart.register(...registerables);
    return Chart;
  });
  return loading;
}

/**
 * Draws `spec` into `canvas`; returns the Chart instance (call destroy() when removing it).
 * Colours of text and grid follow the canvas's CSS colour, so dark themes work.
 */
export async function drawChart(canvas, spec, { locale = 'en-US' } = {}) {
  const Chart = await loadChartJs();
  if (!canvas.isConnected) return undefined;
  const style = getComputedStyle(canvas);
  const textColor = style.color || '#334155';
  const gridColor = style.getPropertyValue('--ac-grid').trim() || 'rgba(127,127,127,0.2)';
  const valueAxis = spec.horizontal ? 'x' : 'y';
  const categoryAxis = spec.horizontal ? 'y' : 'x';
  const tick = (value) => formatNumber(Number(value), { locale });
  return new Chart(canvas, {
    type: spec.type ?? 'bar',
    data: {
      labels: spec.labels,
      datasets: spec.datasets.map((dataset, index) => ({
        ...dataset,
        backgroundColor: PALETTE[index % PALETTE.length],
        borderColor: PALETTE[index % PALETTE.length],
        borderRadius: 3,
        maxBarThickness: 48,
      })),
    },
    options: {
      indexAxis: spec.horizontal ? 'y' : 'x',
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      color: textColor,
      plugins: {
        legend: { display: spec.datasets.length > 1, position: 'bottom', labels: { color: textColor, boxWidth: 12 } },
        tooltip: {
          callbacks: {
            label: (item) => `${item.dataset.label}: ${formatNumber(item.parsed[valueAxis], { locale, digits: Number.isInteger(item.parsed[valueAxis]) ? 0 : 2 })}`,
          },
        },
      },
      scales: {
        // One unit per chart (results.js draws a chart per currency): the axis says which.
        [valueAxis]: { beginAtZero: true, ticks: { color: textColor, callback: tick }, grid: { color: gridColor }, ...(spec.unit ? { title: { display: true, text: spec.unit, color: textColor } } : {}) },
        [categoryAxis]: { ticks: { color: textColor, autoSkip: true, maxRotation: 45 }, grid: { display: false } },
      },
    },
  });
}
