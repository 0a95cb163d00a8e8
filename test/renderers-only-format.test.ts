// Renderers only format: report/ neither sorts, folds nor takes extremes of figures; analysis/ does,
// once, into the Report (its figures and its tables). Checked on the sources, call by call.
// The allowance is narrow, and each case says why it is layout or encoding, not a statistic:
// - Math.min / Math.max with two arguments: a clamp of one value (a bar's width, an axis' floor);
// - Math.min / Math.max over a spread of text lengths (`.length`): the width of a column of cells;
// - `.sort(([a], [b]) => …)`: entries ordered by their key, a name (Influx's tag order), never a figure;
// - JUnit's suite time, which its schemas define as the sum of the suite's testcase times.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPORT = join(import.meta.dirname, '..', 'src', 'report');

/** The arguments of the call whose `(` is at `open`, split at its top-level commas. */
function argumentsAt(text: string, open: number): string[] {
  const args: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) {
        args.push(text.slice(start, i).trim());
        return args.filter(Boolean);
      }
    } else if (c === ',' && depth === 1) {
      args.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  return args;
}

/** Every call in report/ that computes over figures, as `file:line: source`. */
function offences(): string[] {
  return readdirSync(REPORT)
    .filter((f) => f.endsWith('.ts'))
    .flatMap((file) => {
      const text = readFileSync(join(REPORT, file), 'utf8');
      const at = (i: number) => `${file}:${text.slice(0, i).split('\n').length}`;
      const found: string[] = [];
      for (const m of text.matchAll(/Math\.(min|max)\(/g)) {
        const args = argumentsAt(text, m.index + m[0].length - 1);
        const spreads = args.filter((a) => a.startsWith('...'));
        const widths = spreads.length > 0 && spreads.every((a) => a.includes('.length'));
        if (!widths && (spreads.length > 0 || args.length > 2)) found.push(`${at(m.index)}: ${m[0]}`);
      }
      for (const m of text.matchAll(/\.sort\(([^)]*)/g))
        if (!m[1]!.startsWith('([a], [b]')) found.push(`${at(m.index)}: sort(`);
      for (const m of text.matchAll(/\.reduce\(/g)) {
        const line = text.slice(m.index, text.indexOf('\n', m.index));
        const suiteTime = file === 'junit.ts' && line.includes('c.timeS');
        if (!suiteTime) found.push(`${at(m.index)}: reduce(`);
      }
      return found;
    });
}

describe('renderers only format', () => {
  it('report/ has no sort, reduce or extremes over figures, beyond its documented layout', () => {
    expect(offences()).toEqual([]);
  });

  it('the check finds what it looks for', () => {
    const text = 'Math.max(0, ...values) Math.min(a, b, c) Math.max(w, ...cells.map((c) => c.length))';
    const calls = [...text.matchAll(/Math\.(min|max)\(/g)].map((m) =>
      argumentsAt(text, m.index + m[0].length - 1),
    );
    expect(calls).toEqual([
      ['0', '...values'],
      ['a', 'b', 'c'],
      ['w', '...cells.map((c) => c.length)'],
    ]);
  });
});
