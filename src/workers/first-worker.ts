// The first worker process, forked as soon as the CLI knows a measuring command will run: its
// start (Node's own, then its modules) overlaps the coordinator's setup (the workload's modules,
// the results path, the environment, the target's preflight) instead of following it. The first
// pool adopts it; until then it holds the coordinator's event loop open for nothing (unref'd), so a
// command that fails before its session still exits, and the worker with it (its channel closes).
import { fork, type ChildProcess } from 'node:child_process';
import { EarlyStart } from '../startup/start.js';
import { workerEntry } from './entry.js';

const WORKER = workerEntry();

export function forkWorker(): ChildProcess {
  const child = fork(WORKER.path, [], {
    execArgv: WORKER.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  // A message to a worker that has just died (a signal to the whole group while it was starting)
  // fails with EPIPE before 'disconnect' says so: its exit names the death; unheard, it would crash us.
  child.on('error', () => {});
  return child;
}

/** The first worker, forked by the process's entry before its command loads. */
const early = new EarlyStart<ChildProcess>();

/** Forks the first worker now, once. */
export function startFirstWorker(): void {
  early.start(() => {
    const child = forkWorker();
    child.unref();
    child.channel?.unref();
    return child;
  });
}

/** The early worker, for the first pool that needs one, when it is still up; held open from here on. */
export function takeFirstWorker(): ChildProcess | undefined {
  const child = early.take();
  if (!child) return undefined;
  if (!(child.connected && child.exitCode === null && child.signalCode === null)) {
    child.kill();
    return undefined;
  }
  child.ref();
  child.channel?.ref();
  return child;
}
