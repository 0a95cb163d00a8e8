// What a contender measures, declared once per workload and direction: whether it is one object or
// a set of many blobs, the shape its kind counts its unit by, what its workers tally of their own
// shares, how they record completions, and what the coordinator verifies a merged run as.

/**
 * `blob` one object (what `all` runs: compared in MiB/s); `files` a set of FILE_COUNT small blobs;
 * `list` pages through List Blobs over the set, `head` asks each blob's properties. The many-blob
 * ones are counted in ops/s and each is its own workload.
 */
export type WorkloadName = 'blob' | 'files' | 'list' | 'head';

/** One object (a blob, its ranges, its blocks), or a set of many small files. */
export type PlanShape = 'object' | 'files';

export interface Workload {
  readonly name: WorkloadName;
  readonly direction: 'download' | 'upload';
  /** A set of many blobs (on a plain URL, paths below it), each file its own request. */
  readonly many: boolean;
  /** What its kind counts its unit by: bytes of one object, or requests over many files. */
  readonly shape: PlanShape;
  /** The workers' own check of their shares (many files); none: the coordinator gets every record. */
  readonly tally?: 'upload' | 'files' | 'head';
  /**
   * How a worker records completions: each item an object of its own, or (one object split into the
   * plan's requests, nothing after the workers) its one object whole; none: the coordinator's records.
   */
  readonly completions?: 'per-item' | 'whole-object';
  /** What the coordinator verifies a merged run as: one object, the set's files, listings, HEADs, uploads. */
  readonly verifyAs: WorkloadName | 'upload';
  /** In a few words, as --help names it. */
  readonly words: string;
}

const download = (w: Omit<Workload, 'direction' | 'verifyAs'>): Workload => ({
  ...w,
  direction: 'download',
  verifyAs: w.name,
});

/** The download workloads by name. */
export const DOWNLOAD_WORKLOADS: Readonly<Record<WorkloadName, Workload>> = {
  blob: download({
    name: 'blob',
    many: false,
    shape: 'object',
    completions: 'whole-object',
    words: 'one blob',
  }),
  files: download({
    name: 'files',
    many: true,
    shape: 'files',
    tally: 'files',
    completions: 'per-item',
    words: 'a GET per blob',
  }),
  list: download({ name: 'list', many: true, shape: 'object', words: 'List Blobs pages' }),
  head: download({ name: 'head', many: true, shape: 'object', tally: 'head', words: 'a HEAD per blob' }),
};

/** The upload workloads: one large blob, or many small files (each an object of its own). */
export const UPLOAD_WORKLOADS: Readonly<Record<'blob' | 'files', Workload>> = {
  blob: {
    name: 'blob',
    direction: 'upload',
    many: false,
    shape: 'object',
    verifyAs: 'upload',
    words: 'one blob',
  },
  files: {
    name: 'files',
    direction: 'upload',
    many: true,
    shape: 'files',
    tally: 'upload',
    completions: 'per-item',
    verifyAs: 'upload',
    words: 'small files',
  },
};
