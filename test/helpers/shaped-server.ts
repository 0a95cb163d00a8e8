// A plain object server that shapes its answers, to make a recommendation true on purpose: it
// paces each connection to a rate (so parallel ranges really are faster), or delays each run's
// answers alike (so one GET and four ranges really tie). It counts what it was asked, by class.
import http from 'node:http';

export interface ShapedLog {
  /** Whole-object GETs (no Range, or one covering the whole body) and ranged GETs. */
  wholeGets: number;
  rangedGets: number;
  heads: number;
  other: number;
}

export interface Shaping {
  /** Each response's body written at this rate, in 16 KiB slices. */
  bytesPerSecond?: number;
  /**
   * A delay before answering, the same for every request of one run: whole GETs are runs of
   * `single`, ranged GETs come `rangesPerRun` to a run; run i of either waits `delaysMs[i % length]`.
   */
  delaysMs?: number[];
  rangesPerRun?: number;
}

const SLICE = 16 * 1024;

export function shapedServer(body: Buffer, shaping: Shaping): { server: http.Server; log: ShapedLog } {
  const log: ShapedLog = { wholeGets: 0, rangedGets: 0, heads: 0, other: 0 };
  const server = http.createServer((req, res) => {
    if (req.method === 'HEAD') {
      log.heads++;
      res.writeHead(200, { 'content-length': body.length, 'accept-ranges': 'bytes' }).end();
      return;
    }
    if (req.method !== 'GET') {
      log.other++;
      res.writeHead(405).end();
      return;
    }
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    const first = m ? Number(m[1]) : 0;
    const last = m ? Math.min(Number(m[2]), body.length - 1) : body.length - 1;
    const whole = first === 0 && last === body.length - 1;
    const runIndex = whole ? log.wholeGets : Math.floor(log.rangedGets / (shaping.rangesPerRun ?? 1));
    if (whole) log.wholeGets++;
    else log.rangedGets++;
    const delays = shaping.delaysMs ?? [0];
    const delayMs = delays[runIndex % delays.length]!;
    const part = body.subarray(first, last + 1);
    const answer = () => {
      res.writeHead(m ? 206 : 200, {
        'content-length': part.length,
        ...(m ? { 'content-range': `bytes ${first}-${last}/${body.length}` } : {}),
      });
      const rate = shaping.bytesPerSecond;
      if (!rate) {
        res.end(part);
        return;
      }
      let at = 0;
      const next = () => {
        if (res.destroyed) return;
        const slice = part.subarray(at, at + SLICE);
        at += slice.length;
        if (at >= part.length) res.end(slice);
        else {
          res.write(slice);
          setTimeout(next, (slice.length / rate) * 1000);
        }
      };
      next();
    };
    setTimeout(answer, delayMs);
  });
  return { server, log };
}
