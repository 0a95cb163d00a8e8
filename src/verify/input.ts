// What the coordinator checks a merged run against: every kind's `verify` takes it, whatever the
// workload, and the verifications in this folder read what their workload needs of it.
import type { Tally } from '../metrics/record-checks.js';
import type { RecordTable } from '../metrics/record-table.js';
import type { Items } from '../plan/items.js';
import type { Workload } from '../plan/workload.js';
import type { MixDraw } from '../plan/mix.js';
import type { UploadStore } from '../storage/blob-store.js';
import type { TargetInfo } from '../storage/target.js';

/** What the coordinator checks a merged run against. */
export interface VerifyInput {
  /** What the run measured: one object, the many-blob set, or what was uploaded. */
  workload: Workload;
  items: Items;
  records: RecordTable;
  /** The workers' own checks of their shares, when they sent a sample of the records. */
  tally?: Tally;
  /**
   * Items a worker found byte for byte equal to the fixture it regenerated from its seed (they carry no MD5).
   */
  equalToFixture?: ReadonlySet<number>;
  target: TargetInfo;
  /**
   * One object: the bytes this client was to deliver, whether that is the whole object, and its output file.
   */
  expectedBytes: number;
  whole: boolean;
  outPath?: string;
  /** Uploads: the store that reads back and checks what it holds. */
  store?: UploadStore;
  /** A mix: each item's operation and the kind that checks it. */
  mix?: MixDraw;
}
