// Preloaded (node --import) into blob-cacher's coordinator and, through fork's inherited execArgv,
// into every worker: at exit each process appends its own peak RSS to a file. It reads VmHWM from
// /proc/self/status: getrusage's maxrss is not per process on Linux, a spawned or forked child
// starts with its parent's peak (the pre-exec copy of the parent's memory counts).
import { appendFileSync, readFileSync } from 'node:fs';

const out = process.env.BENCH_RSS_FILE;
const role = process.send ? 'worker' : 'coordinator';

function peakRssBytes() {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return { bytes: Number(m[1]) * 1024, source: 'VmHWM' };
  } catch {
    // not Linux: fall back to getrusage, which may include the parent's peak
  }
  return { bytes: process.resourceUsage().maxRSS * 1024, source: 'maxrss' };
}

if (out) {
  process.on('exit', () => {
    try {
      const peak = peakRssBytes();
      appendFileSync(out, `${JSON.stringify({ pid: process.pid, role, maxRssBytes: peak.bytes, source: peak.source })}\n`);
    } catch {
      // A benchmark aid must never change how the measured process ends.
    }
  });
}
