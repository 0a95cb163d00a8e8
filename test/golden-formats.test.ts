// Golden files: each format of a fixed Report compared byte for byte with a file in the repo, as
// benchstat's testdata/*.stdout and hyperfine's snapshot tests do. The inputs are results files of
// small real runs on the embedded target, frozen under test/golden/: a download of single and chunked
// (1 MiB, --runs 3), an upload of every strategy (small files and blocks), a sweep of --concurrency,
// a steady run (--duration 8s --interval 100ms, so its sparkline is bucketed), a short tune, and
// small files of lognormal sizes (--seed 5), so the per-size-bucket tables and chart show. The
// expected outputs are test/golden/formats/<input>.<name>; the title's results path is fixed here.
// Nothing in a renderer may read the clock or draw a random number, so the files never drift.
//
// After a change that is meant to alter a report, regenerate the files and read the diff:
//   BLOB_CACHER_UPDATE_GOLDEN=1 npx vitest run test/golden-formats.test.ts
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildReport } from '../src/analysis/report-model.js';
import type { ReportFormat } from '../src/config/options.js';
import { renderReport, type RenderOptions } from '../src/report/render.js';
import { readResults } from '../src/results/file.js';

const GOLDEN = join(import.meta.dirname, 'golden');
const UPDATE = process.env['BLOB_CACHER_UPDATE_GOLDEN'] === '1';

/** Each rendering: its file name's tail, the format and the console's options. */
const RENDERINGS: readonly { name: string; format: ReportFormat; opts?: RenderOptions }[] = [
  { name: 'console.txt', format: 'console', opts: { color: false } },
  { name: 'details.txt', format: 'console', opts: { color: false, details: true } },
  { name: 'md', format: 'md' },
  { name: 'csv', format: 'csv' },
  { name: 'json', format: 'json' },
  { name: 'html', format: 'html' },
  { name: 'junit.xml', format: 'junit' },
];

const INPUTS = ['download', 'upload', 'sweep', 'steady', 'tune', 'sizes'];

describe.each(INPUTS)('golden reports of test/golden/%s.json', (input) => {
  const resultsPath = `test/golden/${input}.json`;
  const report = readResults(join(GOLDEN, `${input}.json`)).then((doc) => ({
    doc,
    report: buildReport(doc, { title: `blob-cacher report: ${resultsPath}` }),
  }));

  it.each(RENDERINGS)(`renders $name as the committed ${input}.$name`, async ({ name, format, opts }) => {
    const { doc, report: r } = await report;
    const out = await renderReport(r, format, { ...opts, resultsPath, config: doc.config });
    const file = join(GOLDEN, 'formats', `${input}.${name}`);
    if (UPDATE) writeFileSync(file, out);
    expect(existsSync(file), `${file} is missing: run with BLOB_CACHER_UPDATE_GOLDEN=1`).toBe(true);
    expect(out).toBe(readFileSync(file, 'utf8'));
  });

  it('renders the same bytes twice (no clock, no random)', async () => {
    const { doc, report: r } = await report;
    for (const { format, opts } of RENDERINGS) {
      const once = await renderReport(r, format, { ...opts, resultsPath, config: doc.config });
      expect(await renderReport(r, format, { ...opts, resultsPath, config: doc.config })).toBe(once);
    }
  });
});
