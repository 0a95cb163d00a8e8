// Progress without a terminal: plain lines every interval from the session's events, nothing after
// the run ends, and a quiet level prints none.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { progressLines, showProgress } from '../src/report/progress.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('progress lines', () => {
  it('prints done/total, rate, errors and retries every interval while a run is going', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d) => (text += d));
    const view = progressLines(out, 40);
    view.onEvent({
      type: 'run-start',
      strategy: 'small-files',
      unit: 'ops/s',
      run: 1,
      runs: 3,
      warmup: false,
      requests: 100,
      bytes: 100 * 1024,
    });
    view.onEvent({ type: 'progress', ops: 40, bytes: 40 * 1024, errors: 1, retries: 2 });
    await sleep(110);
    view.onEvent({ type: 'run-end' });
    const lines = text.trim().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines[0]).toMatch(
      /^progress: small-files run 2\/3: 40\/100 requests, \d+ ops\/s, errors 1, retries 2, \d+ s$/,
    );
    await sleep(100);
    expect(text.trim().split('\n')).toHaveLength(lines.length);
    view.close();
  });

  it('large objects are followed in MiB/s, and a sweep cell is named', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d) => (text += d));
    const view = progressLines(out, 30);
    view.onEvent({
      type: 'run-start',
      strategy: 'chunked',
      unit: 'MiB/s',
      cell: { '--concurrency': '8' },
      run: 0,
      runs: 2,
      warmup: true,
      requests: 8,
      bytes: 80 * 1024 * 1024,
    });
    view.onEvent({ type: 'progress', ops: 2, bytes: 20 * 1024 * 1024, errors: 0, retries: 0 });
    await sleep(50);
    view.close();
    expect(text).toMatch(
      new RegExp(
        String.raw`^progress: chunked \[--concurrency 8\] warm-up 1\/2: 2\/8 ` +
          String.raw`requests, [\d.]+ MiB\/s, errors 0, retries 0`,
      ),
    );
  });

  it('a sweep value holding terminal escapes or a newline is shown escaped, on the one line', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d) => (text += d));
    const view = progressLines(out, 30);
    view.onEvent({
      type: 'run-start',
      strategy: 'chunked',
      unit: 'MiB/s',
      cell: { '--block-size': '\u001b]0;PWNED\u0007\nprogress: forged' },
      run: 0,
      runs: 1,
      warmup: false,
      requests: 8,
      bytes: 8,
    });
    await sleep(50);
    view.close();
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(text.split('\n').filter((l) => l.startsWith('progress: forged'))).toEqual([]);
    expect(text).toContain('chunked [--block-size \\x1b]0;PWNED\\x07\\nprogress: forged] run 1/1');
  });

  it(
    'a long untimed step (deleting thousands of uploads) gets lines as a run does: how far, then ' +
      'that it is still going',
    async () => {
      const out = new PassThrough();
      let text = '';
      out.on('data', (d) => (text += d));
      const view = progressLines(out, 30);
      view.onEvent({
        type: 'run-start',
        strategy: 'small-files',
        unit: 'ops/s',
        run: 0,
        runs: 2,
        warmup: false,
        requests: 3000,
        bytes: 3000,
      });
      view.onEvent({ type: 'run-end' });
      // The workers read back what they sent: no count yet, only the time it has taken.
      view.onEvent({ type: 'step', step: 'verify', strategy: 'small-files', run: 0, runs: 2, warmup: false });
      await sleep(150);
      view.onEvent({ type: 'step-end' });
      view.onEvent({
        type: 'step',
        step: 'cleanup',
        strategy: 'small-files',
        run: 0,
        runs: 2,
        warmup: false,
      });
      view.onEvent({ type: 'step-progress', done: 1200, total: 3000 });
      await sleep(150);
      view.onEvent({ type: 'step-end' });
      const lines = text.trim().split('\n');
      expect(lines).toContainEqual(expect.stringMatching(/^progress: small-files run 1\/2: verify, \d+ s$/));
      expect(lines).toContainEqual(
        expect.stringMatching(/^progress: small-files run 1\/2: cleanup 1200\/3000, \d+ s$/),
      );
      // Nothing after the step ends.
      const count = lines.length;
      await sleep(80);
      expect(text.trim().split('\n')).toHaveLength(count);
      view.close();
    },
  );

  it('a quiet level on a pipe prints nothing', async () => {
    const out = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.WriteStream;
    let text = '';
    (out as unknown as PassThrough).on('data', (d) => (text += d));
    const view = await showProgress({ stream: out, intervalMs: 10, lines: false });
    view.onEvent({
      type: 'run-start',
      strategy: 'single',
      unit: 'MiB/s',
      run: 0,
      runs: 1,
      warmup: false,
      requests: 1,
      bytes: 1,
    });
    await sleep(40);
    view.close();
    expect(text).toBe('');
  });
});
