// The README is a page of tasks a user reads in minutes: at most 400 lines, and a median prose
// sentence of at most 20 words, counted by scripts/doc-stats.ts (which prints both).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docStats } from '../scripts/doc-stats.ts';

const ROOT = resolve(import.meta.dirname, '..');

describe('README size', () => {
  it('is at most 400 lines with a median sentence of at most 20 words, ended at . ! ? alone', () => {
    const s = docStats(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    expect(s.lines).toBeLessThanOrEqual(400);
    expect(s.medianWordsStrict).toBeLessThanOrEqual(20);
  });

  it(
    'counts prose only: code, tables and headings are left out, and sentences end ' +
      'where the measure says',
    () => {
      const md = [
        '# A heading of several words here',
        '',
        'One two three. Four five: six seven; eight!',
        '',
        '```sh',
        'node dist/download.js --runs 5 --warmup 1 --results a.json',
        '```',
        '| a | table | row |',
        '- a list item of six words',
      ].join('\n');
      const s = docStats(md);
      // Sentences: "One two three", "Four five", "six seven", "eight", "a list item of six words".
      expect(s.sentences).toBe(5);
      expect(s.medianWords).toBe(2);
      // Ended at . ! ? only: "One two three", "Four five six seven eight", "a list item of six words".
      expect(s.medianWordsStrict).toBe(5);
      expect(s.lines).toBe(9);
    },
  );
});
