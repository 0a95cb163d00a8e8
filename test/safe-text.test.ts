// The one place text from data is made safe for each medium (report/safe-text.ts): what each
// medium escapes, and that ordinary text and the numbers we format come through as they were.
import { describe, expect, it } from 'vitest';
import {
  csvCell,
  fitColumn,
  forHtml,
  forMarkdown,
  forTerminal,
  markdownCode,
  toJson,
} from '../src/report/safe-text.js';

const OSC = '\u001b]0;PWNED\u0007\u001b[2J';

describe('text made safe for each medium', () => {
  it(
    'terminal: ESC, BEL, CR, NUL, a newline, C1 and a direction override are shown as escapes; ' +
      'escaping twice changes nothing',
    () => {
      const shown = forTerminal(`a${OSC}\r\u0000\nb\u009b\u202ec`);
      expect(shown).toBe('a\\x1b]0;PWNED\\x07\\x1b[2J\\r\\x00\\nb\\x9b\\u202ec');
      expect(forTerminal(shown)).toBe(shown);
      expect(forTerminal('chunked [--concurrency 8]: 12.5 MiB/s')).toBe(
        'chunked [--concurrency 8]: 12.5 MiB/s',
      );
    },
  );

  it('a column cut after escaping: an OSC sequence is never cut in half, and the cut is marked', () => {
    const cut = fitColumn(`${'h'.repeat(18)}${OSC}`, 21);
    expect(cut).toBe(`${'h'.repeat(18)}\\x…`);
    expect(cut).not.toMatch(/[\u0000-\u001f]/);
    expect([...cut]).toHaveLength(21);
    expect(fitColumn('host-1', 21)).toBe('host-1');
  });

  it(
    'CSV: text from data that starts a formula is quoted with a leading single quote; our numbers, ' +
      'negatives too, are not',
    () => {
      expect(csvCell("=cmd|' /C calc'!A0")).toBe(`"'=cmd|' /C calc'!A0"`);
      for (const f of ['+1+1', '-2+3', '@SUM(A1)', ' =1+1']) expect(csvCell(f), f).toBe(`"'${f}"`);
      expect(csvCell(-1.5)).toBe('-1.5');
      expect(csvCell(Number.NaN)).toBe('');
      expect(csvCell(true)).toBe('true');
      expect(csvCell('a,"b"')).toBe('"a,""b"""');
      expect(csvCell(`x${OSC}\ny`)).toBe('x\\x1b]0;PWNED\\x07\\x1b[2J\\ny');
    },
  );

  it(
    'Markdown: pipes, backticks, markup, links and a leading heading are escaped; ordinary text and ' +
      'numbers are left as they are',
    () => {
      expect(forMarkdown('a | b')).toBe('a \\| b');
      expect(forMarkdown('`x` <script>')).toBe('\\`x\\` \\<script>');
      expect(forMarkdown('[x](http://e.test)')).toBe('[x\\](http://e.test)');
      expect(forMarkdown('## forged')).toBe('\\## forged');
      expect(forMarkdown('- item')).toBe('\\- item');
      expect(forMarkdown('1. item')).toBe('1\\. item');
      expect(forMarkdown('a\n## forged')).toBe('a\\\\n## forged');
      for (const plain of ['-1.5', '0.0010', '1=', 'chunked [--concurrency 8] (p=0.01)', '12.5 MiB/s'])
        expect(forMarkdown(plain), plain).toBe(plain);
    },
  );

  it('Markdown code: a fence longer than any run of backticks inside, so the text cannot close it', () => {
    expect(markdownCode('a `b` c')).toBe('``a `b` c``');
    expect(markdownCode('`x')).toBe('`` `x ``');
    expect(markdownCode(`x${OSC}`)).toBe('`x\\x1b]0;PWNED\\x07\\x1b[2J`');
  });

  it('HTML: controls as escapes, then the markup characters as entities', () => {
    expect(forHtml(`<b title="x">'&'${OSC}</b>`)).toBe(
      '&lt;b title=&quot;x&quot;&gt;&#39;&amp;&#39;\\x1b]0;PWNED\\x07\\x1b[2J&lt;/b&gt;',
    );
  });

  it('JSON: the same strings to a parser, with no C1 control or direction override written raw', () => {
    const value = { s: `a${OSC}\u009b\u202e`, n: Number.NaN };
    const text = toJson(value);
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(JSON.parse(text)).toEqual({ s: value.s, n: null });
  });
});
