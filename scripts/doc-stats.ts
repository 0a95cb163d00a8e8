// Prints a Markdown file's length in lines and the median length of its prose sentences in words,
// the two figures a README of tasks is held to. Prose only: fenced code, tables and headings are
// left out; a sentence ends at `.`, `!`, `?`, `:` or `;` before a space or a line's end, and at a
// paragraph's end or a list item's. The stricter figure ends sentences at `.`, `!` and `?` alone,
// so that a colon's list counts with its lead-in. Usage: node scripts/doc-stats.ts [README.md …]
import { readFileSync } from 'node:fs';

export interface DocStats {
  lines: number;
  sentences: number;
  medianWords: number;
  /** The median when only `.`, `!` and `?` end a sentence. */
  medianWordsStrict: number;
  /** Sentences over 40 words (ended at . ! ? only): the ones a reader loses the thread of. */
  over40: number;
}

/** The prose sentences of a Markdown text, each as its words. */
export function proseSentences(markdown: string, ends = /[.!?:;](?:\s+|$)/): string[][] {
  const paragraphs: string[] = [];
  let current: string[] = [];
  let inFence = false;
  const flush = () => {
    if (current.length > 0) paragraphs.push(current.join(' '));
    current = [];
  };
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      inFence = !inFence;
      flush();
      continue;
    }
    if (inFence || /^\s*\|/.test(line) || /^\s*#/.test(line) || /^\s*<!--/.test(line) || line.trim() === '') {
      flush();
      continue;
    }
    // A list item starts a sentence of its own.
    if (/^\s*([-*+]|\d+\.)\s/.test(line)) flush();
    current.push(line.trim().replace(/^([-*+]|\d+\.)\s+/, ''));
  }
  flush();
  return paragraphs
    .flatMap((p) => p.split(ends))
    .map((s) => s.split(/\s+/).filter((w) => /\w/.test(w)))
    .filter((w) => w.length > 0);
}

function median(sorted: readonly number[]): number {
  const mid = sorted.length / 2;
  return sorted.length === 0
    ? 0
    : sorted.length % 2 === 1
      ? sorted[Math.floor(mid)]!
      : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function docStats(markdown: string): DocStats {
  const words = proseSentences(markdown)
    .map((s) => s.length)
    .sort((a, b) => a - b);
  const strict = proseSentences(markdown, /[.!?](?:\s+|$)/)
    .map((s) => s.length)
    .sort((a, b) => a - b);
  return {
    lines: markdown.replace(/\n$/, '').split('\n').length,
    sentences: words.length,
    medianWords: median(words),
    medianWordsStrict: median(strict),
    over40: strict.filter((n) => n > 40).length,
  };
}

if (import.meta.main) {
  const files = process.argv.slice(2);
  for (const file of files.length > 0 ? files : ['README.md']) {
    const s = docStats(readFileSync(file, 'utf8'));
    console.log(
      `${file}: ${s.lines} lines; median sentence ${s.medianWords} words (ends at . ! ? : ;), ` +
        `${s.medianWordsStrict} words (ends at . ! ? only), ${s.over40} sentences over 40 words`,
    );
  }
}
