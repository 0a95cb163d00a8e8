// Case 6: the machine's own limits, so every other number can be read against them: loopback TCP
// (iperf3, one stream) and sequential disk writes made durable (dd … conv=fdatasync).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawn } from 'node:child_process';
import { section, tool, type BenchContext } from '../lib/context.ts';
import { runProcess, tail } from '../lib/proc.ts';
import { keyValueTable } from '../lib/report.ts';

async function iperf(ctx: BenchContext): Promise<string> {
  const t = tool(ctx, 'iperf3');
  if (!t.path) return `skipped (${t.missing})`;
  const port = String(20_000 + Math.floor(Math.random() * 20_000));
  const server = spawn(t.path, ['-s', '-1', '-B', '127.0.0.1', '-p', port], { stdio: 'ignore' });
  try {
    await sleep(500);
    const r = await runProcess(t.path, ['-c', '127.0.0.1', '-p', port, '-t', '5', '-J'], {
      timeoutMs: 30_000,
    });
    if (r.code !== 0) return `failed: ${tail(r, 1)}`;
    const j = JSON.parse(r.stdout) as { end: { sum_received: { bits_per_second: number } } };
    const bps = j.end.sum_received.bits_per_second;
    return `${(bps / 1e9).toFixed(1)} Gbit/s (${(bps / 8 / 1024 / 1024).toFixed(0)} MiB/s), 1 stream, 5 s`;
  } finally {
    if (server.exitCode === null) server.kill('SIGTERM');
  }
}

async function dd(ctx: BenchContext): Promise<string> {
  const t = tool(ctx, 'dd');
  if (!t.path) return `skipped (${t.missing})`;
  const out = join(ctx.tmpDir, 'dd.out');
  const r = await runProcess(t.path, ['if=/dev/zero', `of=${out}`, 'bs=1M', 'count=1024', 'conv=fdatasync'], {
    timeoutMs: 300_000,
  });
  rmSync(out, { force: true });
  if (r.code !== 0) return `failed: ${tail(r, 1)}`;
  // "1073741824 bytes (1.1 GB, 1.0 GiB) copied, 2.1 s, 511 MB/s"
  const m = /copied, ([\d.]+) s, (.+)$/m.exec(r.stderr);
  if (!m) return r.stderr.trim().split('\n').pop() ?? '?';
  const secs = Number(m[1]);
  return (
    `${(1024 / secs).toFixed(0)} MiB/s (1 GiB in ${secs.toFixed(2)} s, fdatasync; dd says ` +
    `${m[2]!.trim()})`
  );
}

export async function machine(ctx: BenchContext) {
  const s = section('machine', '6. Machine limits');
  ctx.log('case 6: iperf3 loopback, dd to /tmp');
  s.tables.push(
    keyValueTable([
      ['iperf3 loopback (`iperf3 -s -1`, `iperf3 -c 127.0.0.1 -t 5`)', await iperf(ctx)],
      ['disk write (`dd if=/dev/zero of=/tmp/… bs=1M count=1024 conv=fdatasync`)', await dd(ctx)],
    ]),
  );
  return s;
}
