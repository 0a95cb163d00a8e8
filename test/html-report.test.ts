// The HTML report from real runs on an embedded Azurite: self-contained (no network), escaped, free of
// secrets, and drawn with data in a real headless Chromium (Debian's, driven by playwright-core).
// Leaves a full-page screenshot in test-output/ to look at.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactedConfig, type DownloadConfig } from '../src/config/load.js';
import { runDownload } from '../src/engine/download.js';
import { setLogLevel } from '../src/log/logger.js';
import { renderHtml, type SweepGrid } from '../src/report/html.js';
import { analyze, LATENCY_PERCENTILES, type ContenderStats } from '../src/analysis/analyze.js';
import { buildReport } from '../src/analysis/report-model.js';
import { newResultsFile } from '../src/results/file.js';
import { toRunRecord } from '../src/results/record.js';
import type { ResultsFile } from '../src/results/schema.js';
import { PHASES } from '../src/transport/phases.js';
import { CHROMIUM_PATH as CHROMIUM, requires } from './helpers/requires.js';
import { testConfig, type TestSettings } from './helpers/config.js';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const SCREENSHOT = resolve('test-output/html-report.png');
const CHARTS = ['throughput', 'phases', 'latency', 'sweep'] as const;

function config(overrides: TestSettings<DownloadConfig> = {}): DownloadConfig {
  return testConfig('download', {
    logLevel: 'error',
    sourceMethod: 'all',
    concurrency: 4,
    fileSizeBytes: 2 * 1024 * 1024,
    processes: 1,
    maxSockets: 8,
    sink: 'memory',
    bufferSizeBytes: 65536,
    container: 'html',
    cleanup: false,
    credentials: { kind: 'embedded' },
    runs: 2,
    warmup: 1,
    format: 'console',
    ...overrides,
  });
}

/** A results document as the CLI writes it: the redacted config, one RunRecord per result. */
async function measure(c: DownloadConfig): Promise<ResultsFile> {
  const doc = newResultsFile('download', redactedConfig(c), {
    kind: 'embedded-azurite',
    label: 'embedded Azurite',
  });
  const run = await runDownload(c, {
    onEvent: (e) => {
      if (e.type === 'run') doc.runs.push(toRunRecord(e.run));
    },
  });
  doc.environment.target = run.target;
  doc.complete = true;
  return doc;
}

/** The markup of one chart's <svg>. */
function chartSvg(html: string, chart: string): string {
  const start = html.indexOf(`<svg data-chart="${chart}"`);
  expect(start, `chart ${chart}`).toBeGreaterThanOrEqual(0);
  return html.slice(start, html.indexOf('</svg>', start) + 6);
}

const count = (text: string, needle: string) => text.split(needle).length - 1;
const expectedSegments = (s: ContenderStats) => PHASES.filter((p) => (s.phaseShare[p] ?? 0) > 0).length;

let doc: ResultsFile;
let stats: ContenderStats[];
let sweep: SweepGrid;
let html: string;
let dir: string;

beforeAll(async () => {
  setLogLevel('error');
  dir = await mkdtemp(join(tmpdir(), 'blob-cacher-html-'));
  doc = await measure(config());
  stats = analyze(doc.runs);
  // The sweep is measured too: the same strategies at a second concurrency, one run each.
  const low = analyze((await measure(config({ concurrency: 2, runs: 1, warmup: 0 }))).runs);
  const cols = ['2', '4'];
  const values = stats.map((s) => [
    low.find((l) => l.strategy === s.strategy)?.throughputMiBps.median ?? null,
    s.throughputMiBps.median,
  ]);
  let best = { row: 0, col: 0 };
  values.forEach((row, i) =>
    row.forEach((v, j) => {
      if (v !== null && v > (values[best.row]![best.col] ?? -Infinity)) best = { row: i, col: j };
    }),
  );
  const measured = values.flat().filter((v): v is number => v !== null);
  const range = { low: Math.min(...measured), high: Math.max(...measured) };
  sweep = {
    title: 'Throughput by concurrency',
    rowLabel: 'strategy',
    colLabel: 'concurrency',
    rows: stats.map((s) => s.strategy),
    cols,
    values,
    unit: 'MiB/s',
    range,
    best,
  };
  const report = buildReport(doc, { title: 'blob-cacher download on embedded Azurite' });
  html = renderHtml({
    report: { ...report, sweep: { grid: sweep, winners: [], tied: [], sdkAdvice: [] } },
    config: doc.config,
  });
}, 180_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('HTML report, as text', () => {
  it('is one self-contained document: no scripts, stylesheets, fonts or images from anywhere', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(|\bsrc=|\bhref=/i);
    // The target label may name the loopback Azurite; nothing else may be an address.
    const hosts = [...html.matchAll(/https?:\/\/([^\s"'<>/]+)/gi)].map((m) => m[1]!);
    for (const host of hosts)
      expect(host, 'only loopback addresses in the report').toMatch(
        /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/,
      );
  });

  it('has one <svg> per chart, and every strategy has data in every chart', () => {
    expect(count(html, '<svg')).toBe(CHARTS.length);
    expect(stats.map((s) => s.strategy)).toEqual(['single', 'chunked', 'round-robin', 'assemble', 'sdk']);
    for (const s of stats) {
      expect(s.verified, `${s.strategy}: ${s.problems.join('; ')}`).toBe(true);
      const attr = `data-strategy="${s.strategy}"`;
      expect(count(chartSvg(html, 'throughput'), attr), `${s.strategy} bar, whisker and CI`).toBe(3);
      expect(count(chartSvg(html, 'phases'), attr), `${s.strategy} phase segments`).toBe(expectedSegments(s));
      // The SDK baseline is not traced: it has a total time and no phases, and its row says so.
      if (s.strategy === 'sdk') expect(expectedSegments(s)).toBe(0);
      else expect(expectedSegments(s), s.strategy).toBeGreaterThanOrEqual(2);
      expect(count(chartSvg(html, 'latency'), attr), `${s.strategy} percentile points`).toBe(
        LATENCY_PERCENTILES.length,
      );
      expect(count(chartSvg(html, 'sweep'), `data-row="${s.strategy}"`)).toBe(2);
    }
    expect(count(chartSvg(html, 'sweep'), 'data-best="true"')).toBe(1);
    expect(chartSvg(html, 'phases')).toContain('no phase timings recorded');
  });

  it('draws measured numbers: the bar values are the medians from analyze', () => {
    const bars = [
      ...chartSvg(html, 'throughput').matchAll(
        /class="datum bar" data-strategy="([^"]+)" data-value="([^"]+)"/g,
      ),
    ];
    expect(bars).toHaveLength(stats.length);
    for (const [, name, value] of bars) {
      const s = stats.find((x) => x.strategy === name)!;
      expect(Number(value)).toBeCloseTo(s.throughputMiBps.median, 3);
      expect(Number(value)).toBeGreaterThan(0);
    }
    const points = [
      ...chartSvg(html, 'latency').matchAll(
        /data-strategy="single" data-percentile="([^"]+)" data-value="([^"]+)"/g,
      ),
    ].map((m) => Number(m[2]));
    expect(points).toEqual([...points].sort((a, b) => a - b));
    expect(points.at(-1)).toBeCloseTo(stats[0]!.latencyMs.total!.max, 1);
  });

  it('escapes names and titles, and shows no credential fields', () => {
    const hostile = '<img src=x onerror=alert(1)>&"q"';
    const renamed = doc.runs.map((r) => ({ ...r, strategy: r.strategy === 'single' ? hostile : r.strategy }));
    const withSecrets: ResultsFile = {
      ...doc,
      runs: renamed,
      config: {
        ...doc.config,
        connectionString: 'AccountName=a;AccountKey=SECRET-CS',
        sasToken: 'sv=1&sig=SECRET-SAS',
        credentials: {
          kind: 'key',
          account: 'acct',
          key: 'SECRET-KEY',
          endpoint: 'https://acct.blob.core.windows.net',
        },
      },
    };
    const out = renderHtml({
      report: buildReport(withSecrets, { title: `report <b>${hostile}</b>` }),
      config: withSecrets.config,
    });
    expect(out).not.toContain('<img');
    expect(out).not.toContain('<b>');
    expect(out).toContain('&lt;img src=x onerror=alert(1)&gt;&amp;&quot;q&quot;');
    expect(out).not.toMatch(/SECRET|core\.windows\.net/);
    expect(out).toContain('acct');
  });
});

requires('chromium').describe('HTML report in headless Chromium', () => {
  it('loads from file:// with no errors and no network, and every chart has size and data', async () => {
    const file = join(dir, 'report.html');
    await writeFile(file, html);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage({ viewport: { width: 1120, height: 900 } });
      const errors: string[] = [];
      const requests: string[] = [];
      const failed: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (err) => errors.push(err.message));
      page.on('request', (r) => requests.push(r.url()));
      page.on('requestfailed', (r) => failed.push(`${r.url()}: ${r.failure()?.errorText ?? ''}`));
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });

      expect(errors).toEqual([]);
      expect(failed).toEqual([]);
      for (const url of requests) expect(url).toMatch(/^(file|data):/);

      for (const chart of CHARTS) {
        const svg = page.locator(`svg[data-chart="${chart}"]`);
        await expect(svg.count()).resolves.toBe(1);
        const box = await svg.boundingBox();
        expect(box?.width, chart).toBeGreaterThan(0);
        expect(box?.height, chart).toBeGreaterThan(0);
        // Drawn data: every datum with its strategy (or row), and none of them collapsed to nothing.
        const data = await svg.locator('.datum').evaluateAll((els) =>
          els.map((el) => {
            const r = el.getBoundingClientRect();
            return {
              strategy: el.getAttribute('data-strategy') ?? el.getAttribute('data-row'),
              width: r.width,
              height: r.height,
            };
          }),
        );
        for (const d of data) expect(d.width + d.height, `${chart} ${d.strategy}`).toBeGreaterThan(0);
        for (const s of stats) {
          const n = data.filter((d) => d.strategy === s.strategy).length;
          const expected = {
            throughput: 3,
            phases: expectedSegments(s),
            latency: LATENCY_PERCENTILES.length,
            sweep: 2,
          }[chart];
          expect(n, `${chart}: ${s.strategy}`).toBe(expected);
        }
      }

      await mkdir(resolve('test-output'), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      console.log(`html report screenshot: ${SCREENSHOT}`);
    } finally {
      await browser.close();
    }
  });
});
