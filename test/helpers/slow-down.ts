// A measured results file made slower by a factor, consistently: every measured run's wall time,
// request and phase sums, worker active time, raw records and every histogram's values scale
// together, so its rates, percentiles and ranks are what a target that slow would have given.
import {
  decodeHistogram,
  encodeHistogram,
  newHistogram,
  type EncodedHistograms,
} from '../../src/metrics/histograms.js';
import { RECORD_COLUMNS, type ResultsFile } from '../../src/results/schema.js';
import { PHASES } from '../../src/transport/phases.js';

/** What the walk reads of the package's histogram (as src/metrics/histograms.ts valuesAtPercentiles does). */
interface Walkable {
  countsArrayLength: number;
  getCountAtIndex(index: number): number;
  valueFromIndex(index: number): number;
}

function scaleHistogram(text: string, factor: number): string {
  const from = decodeHistogram(text) as unknown as Walkable;
  const to = newHistogram();
  for (let i = 0; i < from.countsArrayLength; i++) {
    const n = from.getCountAtIndex(i);
    if (n > 0) to.recordValueWithCount(Math.round(from.valueFromIndex(i) * factor), n);
  }
  return encodeHistogram(to);
}

const TIME_COLUMNS = ['totalMs', ...PHASES].map((c) =>
  RECORD_COLUMNS.indexOf(c as (typeof RECORD_COLUMNS)[number]),
);

export function slowDown(doc: ResultsFile, factor: number, createdAt: string): ResultsFile {
  const out = structuredClone(doc);
  out.createdAt = createdAt;
  for (const r of out.runs) {
    if (r.warmup) continue;
    r.wallMs *= factor;
    r.requestSumMs *= factor;
    for (const p of PHASES) if (r.phaseSumsMs[p] !== undefined) r.phaseSumsMs[p]! *= factor;
    if (r.serverSpanMs !== undefined) r.serverSpanMs *= factor;
    for (const w of r.workers) w.activeMs *= factor;
    const o = r.objects;
    if (o)
      r.objects = {
        ...o,
        completionMsSum: o.completionMsSum * factor,
        stragglerMsSum: o.stragglerMsSum * factor,
      };
    const h: EncodedHistograms = {};
    for (const [metric, text] of Object.entries(r.histograms))
      h[metric as keyof EncodedHistograms] = scaleHistogram(text, factor);
    r.histograms = h;
    for (const row of r.records) {
      for (const i of TIME_COLUMNS) if (typeof row[i] === 'number') row[i] = (row[i] as number) * factor;
    }
  }
  return out;
}
