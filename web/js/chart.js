// SVG charts drawn with createElementNS: a line chart (characters per token
// against merges) and a bar chart (token lengths). Colours come from CSS
// classes in the Okabe-Ito palette; the held-out line is also dashed so the
// two series differ without colour.
import { svg, fmt } from "./dom.js";

function niceTicks(lo, hi, count = 5) {
  if (hi <= lo) hi = lo + 1;
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) || raw;
  const ticks = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) ticks.push(+v.toFixed(10));
  return ticks;
}

/** Decimals that show every tick exactly: a step of 0.25 needs two (0.3 would sit on a 1.25 line). */
function tickDecimals(ticks) {
  return Math.min(3, Math.max(0, ...ticks.map((t) => (String(t).split(".")[1] || "").length)));
}

/**
 * series: [{name, className, points: [[x, y], ...]}]
 */
export function lineChart({ series, xLabel, yLabel, title, width = 640, height = 300 }) {
  // One legend row per series above the plot: rows never collide, even in the larger text phones get.
  const LEGEND_ROW = 22;
  const shown = series.filter((s) => s.points.length);
  const m = { top: 12 + LEGEND_ROW * Math.max(1, shown.length), right: 16, bottom: 44, left: 54 };
  const all = series.flatMap((s) => s.points);
  const xs = all.map((p) => p[0]);
  const ys = all.map((p) => p[1]);
  const xMax = Math.max(1, ...xs);
  const yMin = Math.min(...ys, Infinity) === Infinity ? 0 : Math.max(0, Math.floor(Math.min(...ys) * 10) / 10 - 0.1);
  const yMax = Math.max(yMin + 0.5, ...ys) * 1.04;
  const px = (x) => m.left + (x / xMax) * (width - m.left - m.right);
  const py = (y) => height - m.bottom - ((y - yMin) / (yMax - yMin)) * (height - m.top - m.bottom);
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title });
  root.append(svg("title", { text: title }));
  const yTicks = niceTicks(yMin, yMax);
  const yDecimals = tickDecimals(yTicks);
  for (const t of yTicks) {
    root.append(svg("line", { class: "grid", x1: m.left, x2: width - m.right, y1: py(t), y2: py(t) }));
    root.append(svg("text", { x: m.left - 6, y: py(t) + 4, "text-anchor": "end", text: t.toFixed(yDecimals) }));
  }
  for (const t of niceTicks(0, xMax)) {
    if (t > xMax) continue;
    root.append(svg("line", { class: "axis", x1: px(t), x2: px(t), y1: height - m.bottom, y2: height - m.bottom + 4 }));
    root.append(svg("text", { x: px(t), y: height - m.bottom + 16, "text-anchor": "middle", text: fmt(t) }));
  }
  root.append(svg("line", { class: "axis", x1: m.left, x2: width - m.right, y1: height - m.bottom, y2: height - m.bottom }));
  root.append(svg("line", { class: "axis", x1: m.left, x2: m.left, y1: m.top, y2: height - m.bottom }));
  root.append(svg("text", { x: (m.left + width - m.right) / 2, y: height - 8, "text-anchor": "middle", text: xLabel }));
  root.append(svg("text", { x: 14, y: (m.top + height - m.bottom) / 2, "text-anchor": "middle",
    transform: `rotate(-90 14 ${(m.top + height - m.bottom) / 2})`, text: yLabel }));
  let legendY = 14;
  for (const s of shown) {
    const d = s.points.map((p, i) => `${i ? "L" : "M"}${px(p[0]).toFixed(1)},${py(p[1]).toFixed(1)}`).join("");
    root.append(svg("path", { class: `series-${s.className}`, d }, svg("title", { text: s.name })));
    if (s.points.length <= 40) {
      for (const p of s.points) root.append(svg("circle", { class: `dot-${s.className}`, cx: px(p[0]), cy: py(p[1]), r: 2.6 }));
    }
    // The legend sits in its own row above the plot, so it never covers a line.
    const last = s.points[s.points.length - 1];
    const label = `${s.name}: ${last[1].toFixed(2)} at ${fmt(last[0])} merges`;
    root.append(svg("line", { class: `series-${s.className}`, x1: m.left, x2: m.left + 26, y1: legendY - 4, y2: legendY - 4 }));
    root.append(svg("text", { x: m.left + 32, y: legendY, text: label }));
    legendY += LEGEND_ROW;
  }
  return root;
}

/** bars: [{label, value}] */
export function barChart({ bars, xLabel, yLabel, title, width = 420, height = 220 }) {
  const m = { top: 12, right: 10, bottom: 40, left: 48 };
  const yMax = Math.max(1, ...bars.map((b) => b.value));
  const bw = (width - m.left - m.right) / Math.max(1, bars.length);
  const py = (y) => height - m.bottom - (y / yMax) * (height - m.top - m.bottom);
  const root = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": title });
  root.append(svg("title", { text: title }));
  for (const t of niceTicks(0, yMax, 4)) {
    if (!Number.isInteger(t)) continue;
    root.append(svg("line", { class: "grid", x1: m.left, x2: width - m.right, y1: py(t), y2: py(t) }));
    root.append(svg("text", { x: m.left - 6, y: py(t) + 4, "text-anchor": "end", text: fmt(t) }));
  }
  const labelEvery = Math.ceil(bars.length / 16);
  bars.forEach((b, i) => {
    const x = m.left + i * bw;
    root.append(svg("rect", { class: "bar", x: x + bw * 0.12, width: Math.max(1, bw * 0.76), y: py(b.value), height: Math.max(0, py(0) - py(b.value)) },
      svg("title", { text: `${b.label}: ${fmt(b.value)}` })));
    if (i % labelEvery === 0) root.append(svg("text", { x: x + bw / 2, y: height - m.bottom + 14, "text-anchor": "middle", text: b.label }));
  });
  root.append(svg("line", { class: "axis", x1: m.left, x2: width - m.right, y1: py(0), y2: py(0) }));
  root.append(svg("text", { x: (m.left + width - m.right) / 2, y: height - 6, "text-anchor": "middle", text: xLabel }));
  root.append(svg("text", { x: 12, y: (m.top + height - m.bottom) / 2, "text-anchor": "middle",
    transform: `rotate(-90 12 ${(m.top + height - m.bottom) / 2})`, text: yLabel }));
  return root;
}
