// A worker process: jobs one after another (it stays warm across a session's runs), each a JobRun
// of its own (job-run.ts) with one capped connection pool and one tracer per request. This file is
// only the process's glue: messages in, the job's state machine, messages out.
import { KeptBuffers } from '../kept/buffers.js';
import { registerSecret } from '../log/logger.js';
import { preloadOwnKinds } from '../kinds/index.js';
import { removeScratchOf } from '../payload/scratch.js';
import { JobRun } from './job-run.js';
import type { FromWorker, ToWorker } from './protocol.js';

// A coordinator that is gone (killed, even with SIGKILL) ends the worker quietly: no EPIPE traces.
const send = (msg: FromWorker) => {
  if (!process.connected) return orphaned();
  process.send!(msg, undefined, {}, (err: Error | null) => {
    if (err) orphaned();
  });
};

/** The coordinator gone: nothing of it ran to clean up, so its scratch goes with this worker. */
function orphaned(): void {
  void removeScratchOf(current?.job.outPath).finally(() => process.exit(0));
}

// Ctrl-C reaches the whole process group: the coordinator decides, workers finish what is in flight.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
// A closed terminal hangs up the whole group too: the coordinator stops the run as on SIGTERM.
process.on('SIGHUP', () => {});

/**
 * Loaded while this worker waits for its first job (the first worker is forked before the
 * coordinator has parsed its options): our own request kinds. A job's set-up waits for it, and loads
 * the histogram code where the job will make histograms (JobRun.prepare): a small job's worker sends
 * its records alone and never loads it, which is where a cold start waited for this worker.
 */
const preloaded = new Promise(setImmediate)
  .then(() => {
    preloadOwnKinds();
    // Node's socket destroy compares the socket with process.stderr, whose getter makes the stream on
    // first use: made here, not as the first job closes its sockets before its result.
    void process.stderr;
  })
  .catch(() => {});

/** The job this worker holds now; each 'job' message starts a new one. */
let current: JobRun | undefined;
/** This process's state, which every job and its kind reuse (kept/buffers.ts): made here, once. */
const kept = new KeptBuffers();

process.on('message', (msg: ToWorker) => {
  switch (msg.type) {
    case 'job': {
      const job = new JobRun(msg.job, send, kept);
      current = job;
      preloaded
        .then(() => job.prepare())
        .then(
          () => send({ type: 'ready' }),
          (err: Error) => send({ type: 'failed', message: err.message }),
        );
      return;
    }
    case 'go':
      current!.run(msg.epochMs).then(
        (result) => send({ type: 'done', result }),
        (err: Error) => send({ type: 'failed', message: err.message }),
      );
      return;
    case 'stop':
      send({ type: 'stopping', sentBefore: current?.stopNow() ?? 0 });
      return;
    case 'finish':
      current?.finish();
      return;
    case 'verify':
      current?.allDone();
      return;
    case 'token':
      registerSecret(msg.bearer.token);
      current?.renew(msg.bearer);
      return;
  }
});
process.on('disconnect', orphaned);
