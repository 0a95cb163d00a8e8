// The one rule for what a workload is counted in: bytes moved (MiB/s) or requests answered (ops/s).
// Runs since results schema 3 record it (from their request kind); older files get the legacy rule.
import type { RunRecord, Unit } from '../results/schema.js';
import { legacyUnitOf } from '../strategies/index.js';

export function unitOfRun(r: Pick<RunRecord, 'unit' | 'params' | 'strategy' | 'steady' | 'bytes'>): Unit {
  if (r.unit) return r.unit;
  if (r.params?.fileCount !== undefined || legacyUnitOf(r.strategy) === 'ops/s') return 'ops/s';
  if (r.steady) return r.steady.lapBytes > 0 ? 'MiB/s' : 'ops/s';
  return 'MiB/s';
}

/** A contender's unit: its first run's (a contender's runs share a request kind). */
export const unitOf = (
  runs: readonly Pick<RunRecord, 'unit' | 'params' | 'strategy' | 'steady' | 'bytes'>[],
): Unit => (runs.length ? unitOfRun(runs[0]!) : 'MiB/s');

/** A report's unit: ops/s only when every contender is counted in ops/s. */
export const reportUnit = (units: readonly Unit[]): Unit =>
  units.length > 0 && units.every((u) => u === 'ops/s') ? 'ops/s' : 'MiB/s';
