// The GET kinds' sinks: opened before the barrier, and hashed after every worker is done (except
// discard, which hashes as the bytes come): each record gets the MD5 of what its item delivered.
import type { Items } from '../plan/items.js';
import type { RecordTable } from '../metrics/record-table.js';
import type { KindContext } from './kind.js';
import { openSink, type Sink } from './sinks.js';

/** The job's sink; none for an empty share. */
export async function openJobSink({ job, items }: Pick<KindContext, 'job' | 'items'>): Promise<Sink | undefined> {
  if (!items.length) return undefined;
  return openSink(job.sink, items, job.objectSizeBytes, job.outPath, job.hashRanges !== false);
}

/** Each item that did not fail gets its MD5 from the sink (one record per item). */
export async function hashInto(sink: Sink, items: Items, records: RecordTable): Promise<void> {
  if (sink.hashesAsItGoes) return;
  for (let n = 0; n < items.length; n++) if (records.error(n) === undefined) records.setMd5(n, await sink.md5Of(items.at(n)!));
}
