// Whole-object completion: an object is done when its slowest part is. Per object, the time from
// its first request's sending to its last part's end (into the `object` histogram), and the straggler
// time: how long the last part ran on alone after every other part had ended. Computed where every
// record is still there (a many-file worker over its share; the coordinator for one split object).
import type { PhaseHistograms } from './histograms.js';
import type { RecordTable } from './record-table.js';

/** Sums over objects, added across workers and runs; the distribution is the `object` histogram. */
export interface ObjectTotals {
  objects: number;
  completionMsSum: number;
  /** Time the slowest part ran on after the others had ended (0 for a one-request object). */
  stragglerMsSum: number;
}

export const emptyObjectTotals = (): ObjectTotals => ({ objects: 0, completionMsSum: 0, stragglerMsSum: 0 });

export function addObjectTotals(a: ObjectTotals, b: ObjectTotals): ObjectTotals {
  return {
    objects: a.objects + b.objects,
    completionMsSum: a.completionMsSum + b.completionMsSum,
    stragglerMsSum: a.stragglerMsSum + b.stragglerMsSum,
  };
}

/**
 * When row `i`'s item was sent: its request's start past any time queued for a socket (many files
 * are all issued at the run's start, and a file's place in that queue is the batch's, not the
 * file's); for a duplicate that won, `hedgeAfterMs` before the duplicate went.
 */
function itemSent(t: RecordTable, i: number): number {
  const start = t.get('startEpochMs', i);
  return t.get('hedge', i) === 2 ? start - t.get('hedgeAfterMs', i) : start + t.phaseMs('wait', i);
}

/** Many files: every item that succeeded is an object of one request (its hedge's wait included). */
export function perItemObjects(t: RecordTable, h: PhaseHistograms): ObjectTotals {
  const out = emptyObjectTotals();
  for (let i = 0; i < t.length; i++) {
    if (t.error(i) !== undefined) continue;
    const ms = t.get('startEpochMs', i) + t.get('totalMs', i) - itemSent(t, i);
    h.recordMs('object', ms);
    out.objects++;
    out.completionMsSum += ms;
  }
  return out;
}

/**
 * One object split into the table's requests (ranges, copies, blocks and a commit): its first start to its
 * last end, and the last part's time alone. None when a part failed (the object never completed).
 */
export function splitObject(t: RecordTable, h: Pick<PhaseHistograms, 'recordMs'>): ObjectTotals {
  const out = emptyObjectTotals();
  if (!t.length) return out;
  let start = Infinity;
  let last = -Infinity;
  let second = -Infinity;
  for (let i = 0; i < t.length; i++) {
    if (t.error(i) !== undefined) return out;
    start = Math.min(start, itemSent(t, i));
    const end = t.get('startEpochMs', i) + t.get('totalMs', i);
    if (end > last) [second, last] = [last, end];
    else if (end > second) second = end;
  }
  const ms = last - start;
  h.recordMs('object', ms);
  return {
    objects: 1,
    completionMsSum: ms,
    stragglerMsSum: second === -Infinity ? 0 : last - Math.max(start, second),
  };
}
