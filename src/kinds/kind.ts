// The one interface every kind of request implements (warp's Benchmark: Prepare, Start, Cleanup),
// and the context a worker gives it. A kind is a workload down to its requests: its set-up before
// the barrier, the request(s) for one item in one lane, the check after every worker is done, what
// it lets go of, the coordinator's verification of a merged run, and the unit it is counted in.
import type http from 'node:http';
import type { Items, WorkItem } from '../plan/items.js';
import type { PlanShape } from '../plan/workload.js';
import type { OpRecord } from '../metrics/records.js';
import type { RecordTable } from '../metrics/record-table.js';
import type { Unit } from '../results/schema.js';
import type { Verification } from '../results/record.js';
import type { RequestSigner } from '../storage/target.js';
import type { HttpClient } from '../transport/http-client.js';
import type { RawPool } from '../transport/raw-client.js';
import type { KindJob } from './job.js';
import type { KeptBuffers } from '../kept/buffers.js';
import type { CheckNote } from '../sinks/check.js';
import type { VerifyInput } from '../verify/input.js';

export type { CheckNote, VerifyInput };

/** What a worker hands a kind before the barrier: its job and share, and the transport it opened. */
export interface KindContext {
  job: KindJob;
  items: Items;
  signer: RequestSigner;
  /**
   * node:http's agent, capped at MAX_SOCKETS: our requests with --http-client node, and warm-up
   * HEADs without the raw pool. Made on first call: a worker on the raw pool never loads node:http.
   */
  agent: () => http.Agent;
  /**
   * The client every request of the job goes through: our raw pool, or node:http over `agent`, made
   * on first call (one per job).
   */
  client: () => HttpClient;
  /** Our raw client's pool (kinds with `transport`, unless --http-client node). */
  pool?: RawPool;
  /** Each item's URL, made before the barrier; unset past a bound on items (then made per request). */
  urls?: ReadonlyMap<number, URL>;
  /** The worker's stop: aborts requests in flight and retry backoffs. */
  signal: AbortSignal;
  /** How many items go at once (lane i runs item after item). */
  lanes: number;
  /**
   * The worker process's state, kept from job to job (kept/buffers.ts: the memory sink's buffer, the
   * fixture's bytes, the last payloads, a hedger's estimate); none: nothing kept, all made afresh.
   */
  kept?: KeptBuffers;
  /** The SDK's agent where several SDK kinds share one (a mix); unset: each makes its own. */
  sdkAgent?: http.Agent;
}

/** A kind set up for one job in one worker. */
export interface KindRun {
  /**
   * The request(s) for one item in `lane`; `queuedAt`: when it counts as issued. A listing: a record per
   * page.
   */
  run(item: WorkItem, lane: number, queuedAt: number | undefined): Promise<OpRecord | OpRecord[]>;
  /**
   * As run(), the record handed to `done` (maybe before send returns) and a throw to `fail`: where a
   * kind has it, the lanes use it, and a request makes no promise on its way.
   */
  send?(
    item: WorkItem,
    lane: number,
    queuedAt: number | undefined,
    done: (r: OpRecord) => void,
    fail: (err: unknown) => void,
  ): void;
  /**
   * After every worker (and the step after them) is done, so that it competes with no one's timed
   * requests: checks what was moved and puts what it found on the records (an MD5, a read-back error).
   * Absent: nothing to check in the worker.
   */
  check?(records: RecordTable, signal: AbortSignal): Promise<CheckNote | void>;
  /** The SDK's own agent, where the kind's calls go through one: --connections warm opens its sockets. */
  readonly agent?: http.Agent;
  /** Lets go of what set-up made (sinks, agents). */
  close(): Promise<void>;
}

export type { PlanShape } from '../plan/workload.js';

/** Bytes moved for one object, requests for many files: the unit of the kinds that move content. */
export const contentUnit = (shape: PlanShape): Unit => (shape === 'files' ? 'ops/s' : 'MiB/s');

export interface RequestKind {
  readonly name: string;
  /**
   * What a workload of this kind is counted and ranked in, given its shape: one object (or one blob
   * of blocks) or a set of many files. Kinds that move no content are ops/s whatever the shape.
   */
  unit(shape: PlanShape): Unit;
  /**
   * true: requests go through our transport (raw pool, URLs made before the barrier, a lane per socket);
   * false: the SDK's own calls.
   */
  readonly transport: boolean;
  /** Writes each item's bytes into the job's sink, so a file sink needs its output file made. */
  readonly writesSink?: boolean;
  setup(ctx: KindContext): Promise<KindRun>;
  verify(input: VerifyInput): Promise<Verification>;
}
