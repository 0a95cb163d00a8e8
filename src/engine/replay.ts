// A replay from its plan to its results: the target opened and checked, the steps it cannot send
// counted, what the log reads first created (all before the start, as every contender's set-up is),
// then the steps at their recorded pace (replay-loop.ts). A stop ends the loop; what was measured
// until then is kept, marked incomplete.
import type { ReplayConfig } from '../config/replay.js';
import { log } from '../log/logger.js';
import { contentBuffer, FIXTURE_SEED } from '../payload/content.js';
import {
  blockIdsOf,
  objectsReadFirst,
  type ReplayObject,
  type ReplayPlan,
  type ReplayStep,
} from '../plan/replay.js';
import { newReplayResults, type ReplayResults } from '../results/replay.js';
import {
  prepareReplayTarget,
  replayable,
  replayRequest,
  replaySigner,
  targetCa,
  targetOrigin,
} from '../storage/replay-requests.js';
import { forRun, whileAlive, type TargetInfo } from '../storage/target.js';
import { openTarget } from '../storage/open-target.js';
import { inLanes } from '../transport/lanes.js';
import { RawPool } from '../transport/raw-client.js';
import { runReplayLoop, type LoopResult } from './replay-loop.js';
import type { HttpClient } from '../transport/http-client.js';
import type { RequestSigner } from '../storage/target.js';

/** A raw pool's read buffer: a listing's page or a chunk of a GET. */
const READ_BUFFER_BYTES = 256 * 1024;
/** Objects created at once before the start. */
const SETUP_LANES = 16;

/** Steps the target sends, and the others counted by why they are not sent. */
function sendable(
  plan: ReplayPlan,
  info: TargetInfo,
): { steps: ReplayStep[]; unsupported: Record<string, number> } {
  const unsupported = { ...plan.unsupported };
  const steps = plan.steps.filter((s) => {
    if (replayable(info, s.op)) return true;
    const why = `${s.op} (a plain URL has none)`;
    unsupported[why] = (unsupported[why] ?? 0) + 1;
    return false;
  });
  return { steps, unsupported };
}

/**
 * Every object the log reads before it writes, at its size. One already there is kept: a hashed set
 * at that size is made once and reused; a kept name (--keep-names) is never overwritten before the
 * start, whatever its size (it may be the user's own file). Untimed, before the start.
 */
async function createReadFirst(
  objects: readonly ReplayObject[],
  client: HttpClient,
  signer: RequestSigner,
  content: Buffer,
  opts: { timeoutMs: number; signal: AbortSignal; keepNames: boolean },
): Promise<ReplayResults['created']> {
  const { keepNames, ...send } = opts;
  const created = { objects: objects.length, bytes: 0, existing: 0 };
  await inLanes(objects, SETUP_LANES, async (o) => {
    if (opts.signal.aborted) return;
    const step = { offsetMs: 0, name: o.name, sizeBytes: o.sizeBytes };
    const head = await client.request({
      ...replayRequest(signer, { ...step, op: 'head' }, content),
      ...send,
    });
    if (!head.error && (keepNames || Number(head.headers['content-length']) === o.sizeBytes)) {
      created.existing++;
      return;
    }
    const body = content.subarray(0, o.sizeBytes);
    const put = await client.request({ ...replayRequest(signer, { ...step, op: 'put' }, body), ...send });
    if (put.error && !opts.signal.aborted)
      throw new Error(`creating ${o.name} before the replay failed: ${put.error}`);
    created.bytes += o.sizeBytes;
  });
  return created;
}

/** Before the start, what the log reads first; then every step at its time; the measured figures. */
async function sendAll(
  config: ReplayConfig,
  info: TargetInfo,
  steps: readonly ReplayStep[],
  signals: { setup: AbortSignal; run: AbortSignal },
): Promise<{ created: ReplayResults['created']; loop: LoopResult }> {
  const objects = objectsReadFirst(steps);
  const largest = Math.max(0, ...steps.map((s) => s.sizeBytes), ...objects.map((o) => o.sizeBytes));
  const content = contentBuffer(FIXTURE_SEED, 0, largest);
  const signer = replaySigner(info);
  const ca = targetCa(info);
  const client = new RawPool(
    targetOrigin(info),
    config.maxInFlight,
    READ_BUFFER_BYTES,
    ca ? { ca } : undefined,
  );
  try {
    const opts = { timeoutMs: config.timeoutMs, signal: signals.setup, keepNames: config.keepNames };
    const created = await createReadFirst(objects, client, signer, content, opts);
    const blocks = blockIdsOf(steps);
    const loop = await runReplayLoop({
      steps,
      client,
      request: (i) => ({
        ...replayRequest(signer, steps[i]!, content.subarray(0, steps[i]!.sizeBytes), blocks.get(i)),
        timeoutMs: config.timeoutMs,
      }),
      speed: config.speed,
      maxInFlight: config.maxInFlight,
      signal: signals.run,
    });
    return { created, loop };
  } finally {
    client.destroy();
  }
}

export async function runReplay(
  config: ReplayConfig,
  plan: ReplayPlan,
  configRecord: Record<string, unknown>,
  signal: AbortSignal,
): Promise<ReplayResults> {
  const target = await openTarget(config.credentials, config.container, signal);
  try {
    const setup = whileAlive(target, signal);
    const info = await forRun(target, target.info, setup);
    await prepareReplayTarget(target, info, { timeoutMs: config.timeoutMs, signal: setup });
    const { steps, unsupported } = sendable(plan, info);
    const names = Object.entries(unsupported).map(([op, n]) => `${n} ${op}`);
    if (names.length) log.warn(`not replayed (counted in the report): ${names.join(', ')}`);
    const { created, loop } = await sendAll(config, info, steps, { setup, run: signal });
    const { format, lines, spanMs } = plan;
    return newReplayResults(configRecord, target.label, {
      complete: loop.complete,
      source: { format, lines, steps: plan.steps.length, spanMs, unsupported },
      speed: config.speed,
      maxInFlight: config.maxInFlight,
      created,
      pace: { wallMs: loop.wallMs, scheduledMs: loop.scheduledMs, lateness: loop.lateness },
      ops: loop.ops,
    });
  } finally {
    await target.stop();
  }
}
