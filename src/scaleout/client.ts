// One client of a scale-out run, as the CLI drives it: the start gate the session awaits before
// releasing its workers (clock offset, then the barrier through storage, once per session), and
// the results it leaves in the storage account for `blob-cacher collect`.
import { hostname } from 'node:os';
import type { ScaleoutConfig } from '../config/scaleout.js';
import { log } from '../log/logger.js';
import type { ResultsFile } from '../results/schema.js';
import { estimateClockOffset, LocalClock, OFFSET_WARN_MS, type ClockOffset } from './clock.js';
import { BarrierError, EXIT_DUPLICATE_INDEX, passBarrier } from './barrier.js';
import { CLIENT_RESULTS_SCHEMA, CLIENT_RESULTS_VERSION, type ClientResults } from './client-results.js';
import { openAccountStore, runPaths, type RunStore } from './run-store.js';

export interface ScaleoutClient {
  /** The session's start gate: the first call waits for every client; later runs go at once. */
  gate(signal: AbortSignal): Promise<void>;
  /** Leaves this client's results (or its failure) at runs/<RUN_ID>/results/<i>.json. */
  publish(outcome: { results?: ResultsFile; error?: unknown }): Promise<void>;
}

/** Its methods are bound: the session takes `gate` as a function of its own. */
export function scaleoutClient(config: ScaleoutConfig, container: string): ScaleoutClient {
  const client = new Client(config, container);
  return { gate: (signal) => client.gate(signal), publish: (outcome) => client.publish(outcome) };
}

class Client implements ScaleoutClient {
  private readonly config: ScaleoutConfig;
  private readonly container: string;
  private readonly clock: LocalClock;
  /** The account's store, opened once by whichever needs it first. */
  private store?: Promise<RunStore>;
  /** The gate, passed once per session. */
  private passed?: Promise<void>;
  /** What the gate measured, for the results: the clock offset and the start on the storage clock. */
  private offset?: ClockOffset;
  private startStorageMs?: number;

  constructor(config: ScaleoutConfig, container: string) {
    this.config = config;
    this.container = container;
    this.clock = new LocalClock(config.testClockSkewMs);
    if (config.testClockSkewMs)
      log.warn(
        `TEST ONLY: this client's clock is shifted by ${config.testClockSkewMs} ms ` +
          '(BLOB_CACHER_TEST_CLOCK_SKEW_MS)',
      );
  }

  private openStore(): Promise<RunStore> {
    return (this.store ??= openAccountStore(this.config.store, this.container));
  }

  gate(signal: AbortSignal): Promise<void> {
    this.passed ??= this.gateOnce(signal);
    return this.passed;
  }

  private async gateOnce(signal: AbortSignal): Promise<void> {
    const { runId, shard } = this.config;
    const s = await this.openStore();
    const offset = await estimateClockOffset(s.probeDate, this.clock, { signal });
    this.offset = offset;
    const shown = offsetText(offset);
    if (Math.abs(offset.offsetMs) > OFFSET_WARN_MS)
      log.warn(
        `this machine's clock is ${shown} off the storage service's: synchronise it (NTP); ` +
          'the start is corrected for it',
      );
    else log.info(`clock offset from the storage service: ${shown}`);
    log.info(
      `scale-out run ${runId}: client ${shard.index} of ${shard.count} ready; waiting for the others ` +
        `(at most ${this.config.barrierTimeoutMs / 1000} s)`,
    );
    const start = await passBarrier(s, {
      runId,
      shard,
      leadMs: this.config.startLeadMs,
      timeoutMs: this.config.barrierTimeoutMs,
      clock: this.clock,
      offset,
      signal,
    });
    this.startStorageMs = start.startStorageMs;
    log.info(
      `scale-out run ${runId}: all ${shard.count} clients ready; ` +
        `started at ${new Date(start.startStorageMs).toISOString()} (storage clock)`,
    );
  }

  async publish({ results, error }: { results?: ResultsFile; error?: unknown }): Promise<void> {
    // A second client with this index must not overwrite the first one's results.
    if (error instanceof BarrierError && error.exitCode === EXIT_DUPLICATE_INDEX) return;
    const { runId, shard } = this.config;
    const { offset, startStorageMs } = this;
    const doc: ClientResults = {
      schema: CLIENT_RESULTS_SCHEMA,
      schemaVersion: CLIENT_RESULTS_VERSION,
      runId,
      index: shard.index,
      parallelism: shard.count,
      host: hostname(),
      ...(offset
        ? {
            clock: {
              offsetMs: offset.offsetMs,
              uncertaintyMs: offset.uncertaintyMs,
              samples: offset.samples,
              recordsOffsetMs: offset.offsetMs + this.clock.skewMs,
            },
          }
        : {}),
      ...(startStorageMs !== undefined ? { startStorageMs } : {}),
      ...(error !== undefined
        ? {
            failure: (error as Error).message ?? String(error),
            exitCode: error instanceof BarrierError ? error.exitCode : 1,
          }
        : {}),
      ...(results ? { results } : {}),
    };
    const path = runPaths(runId).results(shard.index);
    await (await this.openStore()).put(path, JSON.stringify(doc));
    log.info(`scale-out results: ${path} in container ${this.container}`);
  }
}

/** `+12.3 ms ±0.5 (8 Date headers)`: an offset as the log says it. */
function offsetText(offset: ClockOffset): string {
  const sign = offset.offsetMs >= 0 ? '+' : '';
  const samples = `${offset.samples} Date headers${offset.tickSeen ? '' : ', no second tick seen'}`;
  return `${sign}${offset.offsetMs.toFixed(1)} ms ±${offset.uncertaintyMs.toFixed(1)} (${samples})`;
}
