// The one interface every contender implements, downloads and uploads alike: which kind of request
// it makes, which fixtures it reads and which items it plans, and the hooks by which it says what is
// its own (job options, a commit after the workers, advice). Adding a contender is adding a file.
import type { KindName } from '../kinds/index.js';
import type { FixtureList, Items } from '../plan/items.js';
import type { RunParams } from '../results/schema.js';
import type { SizeDraw } from '../plan/size-draw.js';
import type { Workload } from '../plan/workload.js';

/** What a download plans from. */
export interface PlanInput {
  sizeBytes: number;
  concurrency: number;
  /**
   * chunked and round-robin: ranges of this size, `concurrency` in flight (default: `concurrency` equal
   * ranges).
   */
  rangeSizeBytes?: number;
  /**
   * Many-blob workloads: files in the fixture set (each `sizeBytes`), list page size, and PROCESSES x
   * MAX_SOCKETS.
   */
  fileCount?: number;
  /** Many-blob workloads: each file's size drawn from a distribution (`sizeBytes`: the largest drawn). */
  fileSizes?: SizeDraw;
  pageSize?: number;
  lanes?: number;
  /** Where the plan goes: a plain URL serves one object at its own address, and paths below it. */
  urlTarget: boolean;
}

/** What an upload plans from. */
export interface UploadPlanInput {
  /** Unique per run, so runs never collide: every blob name starts with it. */
  prefix: string;
  fileCount: number;
  fileSizeBytes: number;
  /** Small files: each one's size drawn from a distribution. */
  fileSizes?: SizeDraw;
  blobSizeBytes: number;
  blockSizeBytes: number;
  thresholdBytes: number;
}

/** A large blob assembled from staged blocks, committed after every block is in. */
export interface BlockCommit {
  blob: string;
  blockIds: string[];
}

/** The run's settings a strategy's job options are drawn from. */
export interface JobSettings {
  processes: number;
  maxSockets: number;
  concurrency: number;
  /** Downloads: each item's size in a many-blob set, the object's otherwise. */
  sizeBytes: number;
  rangeSizeBytes?: number;
}

/** Options a strategy sets on its job beyond the run's own. */
export interface JobOptions {
  /** Items in flight per worker; unset: all at once, queued by the socket cap. */
  inFlight?: number;
  /** The SDK's block size and concurrency, where a strategy sets them its own way. */
  blockSizeBytes?: number;
  concurrency?: number;
}

/** What a run's requests follow from, as the config gives it before anything is planned. */
export interface RequestInput {
  /** Downloads: the one blob's size, or each file's in a many-blob set. */
  objectSizeBytes: number;
  concurrency: number;
  rangeSizeBytes?: number;
  fileCount: number;
  pageSize?: number;
  blobSizeBytes?: number;
  blockSizeBytes?: number;
  thresholdBytes?: number;
}

/** How the service bills a request: the classes of its rate table. */
export type BillingClass = 'read' | 'write' | 'list' | 'other';

/** Requests one run makes and the class each is billed as (an SDK baseline: the requests it makes inside). */
export interface RequestCount {
  count: number;
  billedAs: BillingClass;
}

/**
 * What a contender asks of its user beyond one request per object, least first: 0 one plain request
 * per object; 1 ranges or blocks to split and join (or an SDK to carry); 2 extra stored copies or
 * parts; 3 a strategy of its own. The recommendation prefers the simpler among equals.
 */
export type Simplicity = 0 | 1 | 2 | 3;

/** The run's options a plan reads beyond the workload's own: --help names its readers beside each. */
export type PlanOption = 'concurrency' | 'rangeSize' | 'pageSize' | 'blobSize' | 'blockSize';

export interface Strategy<Input, Name extends string = string> {
  name: Name;
  /** One line: beside its name in the report and the results file. */
  description: string;
  /** Other names users type for it (the seed's), taken by the method options as it. */
  aliases?: readonly string[];
  /** Requests one run makes and their billing class: what the cost estimate counts before a run. */
  requests(input: RequestInput): RequestCount;
  simplicity: Simplicity;
  /** What it stores beyond the object itself, said beside a recommendation of it. */
  extraStorage?: string;
  /** Its runs' unit in results files older than schema 3, which have none; unset: the schema's rule. */
  legacyUnit?: 'ops/s';
  reads?: readonly PlanOption[];
  /**
   * The request it makes (kinds/index.ts): what the workers run, what it is counted in, how it is checked.
   */
  kind: KindName;
  /**
   * The kind that runs --mix's operations over its many-blob set, each through its own kind
   * (strategies/mix.ts); unset: it takes no part in a mix.
   */
  mixKind?: KindName;
  /** What it measures (plan/workload.ts); unset: its direction's one blob. */
  workload?: Workload;
  /** Whether it works against a plain URL (no fixtures, no copies or parts, no SDK). */
  urlCapable: boolean;
  /** The blobs it reads, made before any run; none for uploads. */
  fixtures?(input: Input): FixtureList;
  plan(input: Input): Items;
  /** A step after every worker is done, timed as part of the run (Put Block List of staged blocks). */
  commit?(input: Input, items: Items): BlockCommit | undefined;
  /** Its own job options (in flight per worker, the SDK's block size). */
  jobOptions?(settings: JobSettings): JobOptions;
  /**
   * Holds each item in one buffer whatever the sink (the SDK's downloadToBuffer): the memory limit applies.
   */
  holdsItemsInMemory?: boolean;
  /** An SDK baseline: the settings to give the SDK, read off its best measured cell. */
  sdkSettings?(params: RunParams, objectSizeBytes: number): string[];
  /**
   * When it wins a sweep and there is nothing to set in the SDK: why (one plain GET has no block settings).
   */
  noSdkSettings?: string;
}

export interface DownloadStrategy<Name extends string = string> extends Strategy<PlanInput, Name> {
  /** --hedge applies: every item is one GET through our transport, so a slow one can be sent again. */
  hedgeable: boolean;
  /** Its bytes go into the run's --sink (file, sparse-file); false: it keeps them (the SDK's buffer). */
  writesSink: boolean;
}

export type UploadStrategy<Name extends string = string> = Strategy<UploadPlanInput, Name>;

export const LARGE_BLOB = 'large.file';
