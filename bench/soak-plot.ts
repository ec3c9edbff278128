import { writeFile } from 'node:fs/promises';
import type { SoakMinute } from './soak-series.js';

/** Debian's chromium, as the admin page's browser test uses it (no browser download); QUEUEBOX_CHROMIUM names another. */
const CHROMIUM = process.env.QUEUEBOX_CHROMIUM ?? '/usr/bin/chromium';

const WIDTH = 1200;
const LEFT = 90;
const RIGHT = 230;
const PANEL_HEIGHT = 230;
const PANEL_GAP = 70;

interface Series {
  name: string;
  color: string;
  values: readonly (number | null)[];
  dashed?: boolean;
  thin?: boolean;
}

interface Panel {
  title: string;
  unit: string;
  series: Series[];
  /** Shaded minute ranges (inclusive), with a label. */
  shades?: { from: number; to: number; label: string }[];
  /** A dashed vertical line at a minute, with a label. */
  marker?: { minute: number; label: string };
  /** Small ticks on the axis at these minutes, with a count each. */
  events?: { minute: number; count: number; label: string }[];
  /** A logarithmic scale (powers of ten): latencies of milliseconds and of a minute on one panel. */
  log?: boolean;
}

export interface PlotInput {
  title: string;
  subtitle: string[];
  minutes: readonly SoakMinute[];
  window: { minutes: number; thirds: boolean };
  steadyFrom: number;
}

const escape = (text: string): string => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** A round step (1, 2 or 5 × a power of ten) giving about `count` ticks up to `max`. */
function niceStep(max: number, count: number): number {
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= raw) ?? 10 * power;
}

/** Splits `line` at spaces into lines of at most about `width` characters. */
function wrap(line: string, width: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of line.split(' ')) {
    if (current && current.length + word.length + 1 > width) {
      lines.push(current);
      current = word;
    } else current = current ? `${current} ${word}` : word;
  }
  return [...lines, current];
}

function tickText(value: number): string {
  if (value >= 1e6) return `${+(value / 1e6).toFixed(1)}M`;
  if (value >= 1e3) return `${+(value / 1e3).toFixed(1)}k`;
  return String(+value.toFixed(2));
}

function panelSvg(panel: Panel, top: number, lastMinute: number, showPoints: boolean): string {
  const width = WIDTH - LEFT - RIGHT;
  const values = panel.series
    .flatMap((s) => s.values)
    .filter((v): v is number => v !== null && Number.isFinite(v) && (!panel.log || v > 0));
  const x = (minute: number): number => LEFT + (minute / lastMinute) * width;
  let y: (value: number) => number;
  const ticks: number[] = [];
  if (panel.log) {
    const low = Math.floor(Math.log10(Math.max(0.1, Math.min(...values, 1))));
    const high = Math.max(low + 1, Math.ceil(Math.log10(Math.max(...values, 1))));
    y = (value) => top + PANEL_HEIGHT - ((Math.log10(Math.max(value, 10 ** low)) - low) / (high - low)) * PANEL_HEIGHT;
    for (let e = low; e <= high; e++) ticks.push(10 ** e);
  } else {
    const rawMax = Math.max(1e-9, ...values);
    const step = niceStep(rawMax * 1.05, 5);
    const yMax = Math.ceil((rawMax * 1.05) / step) * step;
    y = (value) => top + PANEL_HEIGHT - (value / yMax) * PANEL_HEIGHT;
    for (let v = 0; v <= yMax + step / 2; v += step) ticks.push(v);
  }
  const parts: string[] = [];
  parts.push(`<text x="${LEFT}" y="${top - 12}" font-size="15" font-weight="bold">${escape(panel.title)}</text>`);
  for (const shade of panel.shades ?? []) {
    const x0 = x(shade.from - 1);
    parts.push(
      `<rect x="${x0}" y="${top}" width="${x(shade.to) - x0}" height="${PANEL_HEIGHT}" fill="#000" fill-opacity="0.05"/>`,
    );
    parts.push(
      `<text x="${(x0 + x(shade.to)) / 2}" y="${top + 14}" font-size="11" fill="#666" text-anchor="middle">${escape(shade.label)}</text>`,
    );
  }
  for (const v of ticks) {
    parts.push(`<line x1="${LEFT}" x2="${LEFT + width}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/>`);
    parts.push(`<text x="${LEFT - 6}" y="${y(v) + 4}" font-size="11" text-anchor="end">${tickText(v)}</text>`);
  }
  const xStep = Math.max(1, niceStep(lastMinute, 10));
  for (let m = 0; m <= lastMinute; m += xStep)
    parts.push(`<text x="${x(m)}" y="${top + PANEL_HEIGHT + 16}" font-size="11" text-anchor="middle">${m}</text>`);
  parts.push(
    `<text x="${LEFT + width / 2}" y="${top + PANEL_HEIGHT + 32}" font-size="11" text-anchor="middle" fill="#444">minute</text>`,
  );
  parts.push(
    `<text transform="translate(${LEFT - 58},${top + PANEL_HEIGHT / 2}) rotate(-90)" font-size="12" text-anchor="middle">${escape(panel.unit)}</text>`,
  );
  parts.push(`<rect x="${LEFT}" y="${top}" width="${width}" height="${PANEL_HEIGHT}" fill="none" stroke="#888"/>`);
  if (panel.marker) {
    const mx = x(panel.marker.minute);
    parts.push(
      `<line x1="${mx}" x2="${mx}" y1="${top}" y2="${top + PANEL_HEIGHT}" stroke="#555" stroke-dasharray="3,3"/>`,
    );
    parts.push(`<text x="${mx + 4}" y="${top + 28}" font-size="11" fill="#555">${escape(panel.marker.label)}</text>`);
  }
  for (const event of panel.events ?? []) {
    const ex = x(event.minute);
    parts.push(`<path d="M ${ex} ${top + PANEL_HEIGHT - 9} l -5 9 l 10 0 z" fill="#444"/>`);
    if (event.count > 1)
      parts.push(
        `<text x="${ex}" y="${top + PANEL_HEIGHT - 12}" font-size="10" text-anchor="middle">${event.count}</text>`,
      );
  }
  panel.series.forEach((series, i) => {
    const points = series.values.map((v, m) =>
      v === null || !Number.isFinite(v) || (panel.log && v <= 0)
        ? undefined
        : `${x(m + 1).toFixed(1)},${y(v).toFixed(1)}`,
    );
    // A gap (a minute without a value) breaks the line.
    const runs: string[][] = [[]];
    for (const p of points) {
      if (p === undefined) runs.push([]);
      else runs.at(-1)!.push(p);
    }
    for (const run of runs.filter((r) => r.length > 0)) {
      parts.push(
        `<polyline points="${run.join(' ')}" fill="none" stroke="${series.color}" stroke-width="${series.thin ? 1.2 : 2.2}"${series.dashed ? ' stroke-dasharray="6,4"' : ''}/>`,
      );
      if (showPoints)
        for (const p of run)
          parts.push(`<circle cx="${p.split(',')[0]}" cy="${p.split(',')[1]}" r="2.5" fill="${series.color}"/>`);
    }
    const ly = top + 16 + i * 18;
    parts.push(
      `<line x1="${LEFT + width + 14}" x2="${LEFT + width + 38}" y1="${ly - 4}" y2="${ly - 4}" stroke="${series.color}" stroke-width="2.5"${series.dashed ? ' stroke-dasharray="6,4"' : ''}/>`,
    );
    parts.push(`<text x="${LEFT + width + 44}" y="${ly}" font-size="12">${escape(series.name)}</text>`);
  });
  if (panel.events?.length) {
    const ly = top + 16 + panel.series.length * 18;
    parts.push(`<path d="M ${LEFT + width + 26} ${ly - 9} l -5 9 l 10 0 z" fill="#444"/>`);
    parts.push(`<text x="${LEFT + width + 44}" y="${ly}" font-size="12">${escape(panel.events[0].label)}</text>`);
  }
  return parts.join('\n');
}

/** The per-minute series the issue asks for (throughput, p99, table + index size, dead tuples), and the backlog, one panel each, as SVG. */
export function soakSvg(input: PlotInput): { svg: string; width: number; height: number } {
  const m = input.minutes;
  const lastMinute = Math.max(1, m.at(-1)?.minute ?? 1);
  const w = input.window;
  const shades =
    w.minutes > 0 && m.length >= 2 * w.minutes
      ? [
          { from: 1, to: w.minutes, label: w.thirds ? 'first third' : `first ${w.minutes} min` },
          {
            from: lastMinute - w.minutes + 1,
            to: lastMinute,
            label: w.thirds ? 'last third' : `last ${w.minutes} min`,
          },
        ]
      : [];
  const steady = { minute: input.steadyFrom, label: `retention steady from here (minute ${input.steadyFrom})` };
  const mbOf = (bytes: number): number => bytes / 1024 / 1024;
  const panels: Panel[] = [
    {
      title: 'Throughput',
      unit: 'messages per second',
      shades,
      series: [
        { name: 'published', color: '#1f77b4', values: m.map((r) => r.publishedPerSecond) },
        { name: 'enqueued', color: '#ff7f0e', values: m.map((r) => r.enqueuedPerSecond), thin: true },
        { name: 'offered', color: '#777', values: m.map((r) => r.offeredPerSecond), dashed: true, thin: true },
      ],
    },
    {
      title: 'Latency per minute',
      unit: 'ms (log scale)',
      log: true,
      shades,
      series: [
        { name: 'end-to-end p99', color: '#d62728', values: m.map((r) => r.endToEndP99Ms) },
        { name: 'end-to-end p50', color: '#ff9896', values: m.map((r) => r.endToEndP50Ms), thin: true },
        { name: 'claim p99', color: '#9467bd', values: m.map((r) => r.claimP99Ms) },
        { name: 'claim p50', color: '#c5b0d5', values: m.map((r) => r.claimP50Ms), thin: true },
      ],
    },
    {
      title: 'Outbox table size (pg_total_relation_size)',
      unit: 'MB',
      marker: steady,
      series: [
        { name: 'table + indexes', color: '#2ca02c', values: m.map((r) => mbOf(r.totalBytes)) },
        { name: 'table (pg_table_size)', color: '#bcbd22', values: m.map((r) => mbOf(r.tableBytes)), thin: true },
        { name: 'indexes (pg_indexes_size)', color: '#17becf', values: m.map((r) => mbOf(r.indexBytes)), thin: true },
      ],
    },
    {
      title: 'Tuples (pg_stat_user_tables)',
      unit: 'tuples',
      marker: steady,
      events: m
        .filter((r) => r.autovacuums > 0)
        .map((r) => ({ minute: r.minute, count: r.autovacuums, label: 'autovacuum run(s)' })),
      series: [
        { name: 'dead, most in the minute', color: '#8c564b', values: m.map((r) => r.deadTuplesMax) },
        { name: 'dead at the minute’s end', color: '#c49c94', values: m.map((r) => r.deadTuples), thin: true },
        { name: 'live', color: '#7f7f7f', values: m.map((r) => r.liveTuples), thin: true },
      ],
    },
    {
      title: 'Backlog at the minute’s end (pending + in flight)',
      unit: 'rows',
      series: [{ name: 'backlog', color: '#e377c2', values: m.map((r) => r.backlog) }],
    },
  ];
  const subtitle = input.subtitle.flatMap((line) => wrap(line, 150));
  const headerHeight = 40 + subtitle.length * 18 + 40;
  const height = headerHeight + panels.length * (PANEL_HEIGHT + PANEL_GAP);
  const header = [
    `<text x="${LEFT}" y="32" font-size="20" font-weight="bold">${escape(input.title)}</text>`,
    ...subtitle.map(
      (line, i) => `<text x="${LEFT}" y="${58 + i * 18}" font-size="13" fill="#333">${escape(line)}</text>`,
    ),
  ];
  const body = panels.map((panel, i) =>
    panelSvg(panel, headerHeight + i * (PANEL_HEIGHT + PANEL_GAP), lastMinute, m.length <= 30),
  );
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="DejaVu Sans, Arial, sans-serif">
<rect width="${WIDTH}" height="${height}" fill="#fff"/>
${header.join('\n')}
${body.join('\n')}
</svg>
`;
  return { svg, width: WIDTH, height };
}

/**
 * Renders the SVG to a PNG with the system's chromium (headless, through playwright-core, without
 * a network). Without a browser it writes the SVG next to where the PNG would be, and says so.
 */
export async function writeSoakPlot(input: PlotInput, pngPath: string): Promise<string> {
  const { svg, width, height } = soakSvg(input);
  try {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    try {
      const page = await browser.newPage({ viewport: { width, height }, deviceScaleFactor: 1 });
      await page.setContent(`<!doctype html><html><body style="margin:0">${svg}</body></html>`);
      await page.screenshot({ path: pngPath, clip: { x: 0, y: 0, width, height } });
    } finally {
      await browser.close();
    }
    return pngPath;
  } catch (error) {
    const svgPath = pngPath.replace(/\.png$/, '.svg');
    await writeFile(svgPath, svg);
    console.error(`the plot was not rendered to PNG (${String(error).split('\n')[0]}); its SVG is ${svgPath}`);
    return svgPath;
  }
}
