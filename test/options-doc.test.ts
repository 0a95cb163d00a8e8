// docs/options.md is generated from the option tables; this renders it again from the sources and
// fails when the file differs, so the reference cannot drift from what `--help` prints. The fix is
// to regenerate it: npm run build && node scripts/options-doc.ts
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as options from '../src/config/options.js';
import { formatDurationExact } from '../src/vocabulary/durations.js';
import { formatBytes } from '../src/vocabulary/sizes.js';
import { DOC_PATH, renderOptionsDoc } from '../scripts/options-doc.ts';

const ROOT = resolve(import.meta.dirname, '..');
const rendered = renderOptionsDoc({ options, formatBytes, formatDurationExact });

describe('docs/options.md', () => {
  it(
    'is what scripts/options-doc.ts makes from src/config/options.ts (else: npm run build && node ' +
      'scripts/options-doc.ts)',
    () => {
      expect(readFileSync(join(ROOT, DOC_PATH), 'utf8')).toBe(rendered);
    },
  );

  it('lists every flag of every command that --help shows, with its environment name', () => {
    const tables = [
      options.DOWNLOAD_OPTIONS,
      options.UPLOAD_OPTIONS,
      options.TUNE_OPTIONS,
      options.REPORT_OPTIONS,
      options.COLLECT_OPTIONS,
      options.MANIFEST_OPTIONS,
      options.EMULATE_OPTIONS,
    ];
    const shown = tables.flat().filter((s) => !options.isTestOnly(s));
    expect(shown.length).toBeGreaterThan(50);
    for (const spec of shown) {
      expect(rendered, spec.flag).toContain(`\`${spec.flag}`);
      if (spec.env) expect(rendered, spec.env).toContain(`\`${spec.env}\``);
    }
    for (const spec of tables.flat().filter((s) => options.isTestOnly(s)))
      expect(rendered).not.toContain(spec.flag);
  });
});
