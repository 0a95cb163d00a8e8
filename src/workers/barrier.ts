// The start barrier and what follows it: every worker gets its job and says it is ready (payloads
// made, sockets open) before any is released; all are released together with one epoch; once every
// worker has finished (and the step after them), they are told they may check what they moved.
import type { ChildProcess } from 'node:child_process';
import { encodeItems, type Items } from '../plan/items.js';
import type { FromWorker, OpRecord, WorkerJob } from './protocol.js';

/** A job as the engine describes it: every worker gets it with its own index and share of the items. */
export type JobSpec = Omit<WorkerJob, 'workerIndex' | 'workers' | 'items'>;

/**
 * A step that runs once every worker has finished its items without a failure (an upload's commit):
 * started on the workers' 'finished' signal, not after their results arrive, and timed as part of the run.
 */
export type AfterWorkers = () => Promise<OpRecord>;

/** The worker's next message of `type`; a 'failed' message or its exit rejects, naming it and why. */
export function waitFor<T extends FromWorker['type']>(
  child: ChildProcess,
  index: number,
  type: T,
): Promise<Extract<FromWorker, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (msg: FromWorker) => {
      if (msg.type === type) {
        cleanup();
        resolve(msg as Extract<FromWorker, { type: T }>);
      } else if (msg.type === 'failed') {
        cleanup();
        reject(new Error(`worker ${index} (pid ${child.pid}) failed: ${msg.message}`));
      }
    };
    const onExit = (code: number | null, signal: string | null) => {
      cleanup();
      reject(
        new Error(
          `worker ${index} (pid ${child.pid}) died before it was ${type}: ` +
            (signal ? `killed by ${signal}` : `exit code ${code}`),
        ),
      );
    };
    const cleanup = () => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/**
 * Sends each worker its job and share; resolves once every one is ready (or rejects with the first that is
 * not).
 */
export async function dispatch(
  children: readonly ChildProcess[],
  base: JobSpec,
  shares: readonly Items[],
): Promise<void> {
  const ready = children.map((c, i) => waitFor(c, i, 'ready'));
  children.forEach((c, i) =>
    c.send({
      type: 'job',
      job: { ...base, workerIndex: i, workers: children.length, items: encodeItems(shares[i]!) },
    }),
  );
  await Promise.all(ready);
}

/** Releases every worker at once; returns the release's epoch, which steady runs count intervals from. */
export function release(children: readonly ChildProcess[]): number {
  const epochMs = performance.timeOrigin + performance.now();
  for (const c of children) c.send({ type: 'go', epochMs });
  return epochMs;
}

/**
 * Waits for every worker's 'finished'; then runs `after` if none failed an item (a worker that fails
 * or dies means no step after, and its 'done' says why). Workers check what they moved (hash ranges,
 * read uploads back) only once every one of them, and the step after, is done: a worker done early
 * would otherwise load the server and the CPUs while another's timed requests are still going, and
 * lengthen the ranked span. Resolves with the step's record, when it ran.
 */
export function afterAllFinished(
  children: readonly ChildProcess[],
  after?: AfterWorkers,
  onChecking?: () => void,
): Promise<OpRecord | undefined> {
  const finished = children.map((c, i) => waitFor(c, i, 'finished'));
  const afterStep = after
    ? Promise.all(finished)
        .then((msgs) => (msgs.every((m) => m.failedItems === 0) ? after() : undefined))
        .catch(() => undefined)
    : Promise.resolve(undefined);
  void Promise.allSettled([...finished, afterStep]).then(() => {
    onChecking?.();
    for (const c of children) if (c.connected) c.send({ type: 'verify' });
  });
  return afterStep;
}
