// `blob-cacher emulate`: serves an emulated target until stopped: paced connections, a total cap, an
// operations limit answered as Azure answers it, stragglers. For rehearsing `tune` and `--hedge`
// on a target whose optimum is known; what it measures is the emulation, never Azure.
import { buildProgram, parseFlags, resolveOptions } from '../../config/load.js';
import { EMULATE_OPTIONS } from '../../config/options.js';
import { formatBytes } from '../../vocabulary/sizes.js';
import { log, setLogLevel } from '../../log/logger.js';
import { contentBuffer, FIXTURE_SEED } from '../../payload/content.js';
import { startEmulatedTarget } from '../../emulate/server.js';
import { checkObjectsFit } from '../machine-fit.js';
import type { Env } from '../command-kit.js';

const SUMMARY =
  'Serve an emulated target with a known optimum (paced connections, a total cap, an operations ' +
  'limit, stragglers) until stopped: an emulation for rehearsing tune and --hedge, not a measurement of Azure.';

export async function emulateCommand(argv: readonly string[], env: Env, name = 'emulate'): Promise<number> {
  const flags = parseFlags(buildProgram(name, EMULATE_OPTIONS, SUMMARY), argv);
  if (!flags) return 0;
  const o = resolveOptions(EMULATE_OPTIONS, flags, { env });
  setLogLevel(o.logLevel);
  // Checked before a byte is made: the objects are held in memory, each once.
  const storeBytes = checkObjectsFit(o.objects.map((x) => x.sizeBytes));
  const objects = new Map(o.objects.map((x) => [`/${x.name}`, contentBuffer(FIXTURE_SEED, 0, x.sizeBytes)]));
  let refusedShown = false;
  const target = await startEmulatedTarget(
    {
      ...(o.perConnectionBytesPerSecond
        ? { perConnectionBytesPerSecond: o.perConnectionBytesPerSecond }
        : {}),
      ...(o.totalBytesPerSecond ? { totalBytesPerSecond: o.totalBytesPerSecond } : {}),
      ...(o.opsPerSecond ? { opsPerSecond: o.opsPerSecond } : {}),
      ...(o.stragglers ? { stragglers: { ...o.stragglers, seed: 1 } } : {}),
      objects,
      storeBytes,
      // The first refusal is said; the rest are counted in the last line.
      onRefused: (line) => {
        if (!refusedShown) log.warn(`${line} (answered 413; more are counted, not shown)`);
        refusedShown = true;
      },
    },
    o.host,
    o.port,
  );
  const shape = [
    o.perConnectionBytesPerSecond && `${formatBytes(o.perConnectionBytesPerSecond)}/s per connection`,
    o.totalBytesPerSecond && `${formatBytes(o.totalBytesPerSecond)}/s in all`,
    o.opsPerSecond && `${o.opsPerSecond} requests/s`,
    o.stragglers &&
      `1 request in ${o.stragglers.every} stalls ${o.stragglers.stallMs} ms (${o.stragglers.at})`,
  ]
    .filter(Boolean)
    .join(', ');
  process.stdout.write(`emulated target (not Azure) at ${target.url}/: ${shape || 'no limits'}\n`);
  for (const [path, body] of objects)
    process.stdout.write(`  ${target.url}${path} (${formatBytes(body.length)})\n`);
  // Until the first signal: then every connection is cut (a stalled or paced request too, counted
  // abandoned), a line of what it served, and a clean exit.
  await new Promise<void>((resolve) => {
    for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(s, () => resolve());
  });
  await target.close();
  const l = target.log;
  const methods = Object.entries(l.byMethod)
    .map(([m, n]) => `${n} ${m}`)
    .join(', ');
  const refused = l.refused ? `, ${l.refused} PUT(s) refused as too large` : '';
  const bad = l.badRequests ? `, ${l.badRequests} bad request(s)` : '';
  const counts = `${l.throttled} throttled, ${l.stalled} stalled, ${l.abandoned} abandoned${refused}${bad}`;
  log.info(`served ${l.requests} requests (${methods}); ${counts}`);
  return 0;
}
