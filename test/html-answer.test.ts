// The HTML report of a default run and of a sweep, as a user opens it in Chromium: the
// recommendation is above the fold, and every chart label is whole (never under the plot, never
// cut at the edge). Leaves screenshots in test-output/ for a person to look at.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, expect } from 'vitest';
import { CHROMIUM_PATH, requires } from './helpers/requires.js';

const CLI = resolve('dist/cli.js');
const cwd = mkdtempSync(join(tmpdir(), 'bc-html-answer-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));
const VIEWPORT = { width: 1280, height: 800 };

function html(args: string[]): string {
  const r = spawnSync(process.execPath, [CLI, ...args, '--format', 'html'], {
    cwd,
    encoding: 'utf8',
    timeout: 180_000,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: cwd,
      FILE_SIZE: '1MiB',
      BLOB_CACHER_RUNS: '4',
      BLOB_CACHER_WARMUP: '0',
      LOG_LEVEL: 'warn',
    },
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}

/** An SVG element as the page sees it (the test's types have no DOM). */
interface Boxed {
  getBBox(): { x: number; width: number };
}

const chromiumTest = requires('chromium');
for (const [name, args] of [
  ['default run', ['download']],
  [
    'sweep',
    ['sweep', 'download', '--source-method', 'chunked,sdk', '--concurrency', '2,4', '--max-sockets', '4,8'],
  ],
] as const) {
  chromiumTest.it(`${name}: the recommendation above the fold, every chart label whole`, async () => {
    const file = join(cwd, `${name.replace(' ', '-')}.html`);
    writeFileSync(file, html([...args]));
    const browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
    try {
      const page = await browser.newPage({ viewport: VIEWPORT });
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      const rec = await page.locator('.recommendation').boundingBox();
      expect(rec!.y + rec!.height, 'recommendation bottom').toBeLessThanOrEqual(VIEWPORT.height);
      expect(await page.locator('.recommendation').textContent()).toMatch(/^Recommended: /);
      // Each label ends left of its chart's plot (the axis line) and starts inside the drawing.
      for (const chart of ['throughput', 'phases']) {
        const svg = page.locator(`svg[data-chart="${chart}"]`);
        const { labels, plotLeft } = await svg.evaluate((el) => ({
          plotLeft: Math.min(
            ...[...el.querySelectorAll('.datum')].map((d) => (d as unknown as Boxed).getBBox().x),
          ),
          labels: [...el.querySelectorAll('text.label')].map((t) => {
            const b = (t as unknown as Boxed).getBBox();
            return { text: t.textContent ?? '', left: b.x, right: b.x + b.width };
          }),
        }));
        expect(labels.length, chart).toBeGreaterThan(0);
        for (const l of labels) {
          expect(l.left, `${chart}: ${l.text}`).toBeGreaterThanOrEqual(0);
          expect(l.right, `${chart}: ${l.text}`).toBeLessThanOrEqual(plotLeft);
        }
      }
      mkdirSync(resolve('test-output'), { recursive: true });
      await page.screenshot({ path: resolve(`test-output/html-${name.replace(' ', '-')}-fold.png`) });
      await page.screenshot({
        path: resolve(`test-output/html-${name.replace(' ', '-')}-full.png`),
        fullPage: true,
      });
    } finally {
      await browser.close();
    }
  });
}
