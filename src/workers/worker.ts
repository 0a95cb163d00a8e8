// A worker process: jobs one after another (it stays warm across a session's runs), each a JobRun
// of its own (job-run.ts) with one capped connection pool and one tracer per request. This file is
// only the process's glue: messages in, the job's state machine, messages out.
import { registerSecret } from '../log/logger.js';
import { JobRun } from './job-run.js';
import type { FromWorker, ToWorker } from './protocol.js';

// A coordinator that is gone (killed, even with SIGKILL) ends the worker quietly: no EPIPE traces.
const send = (msg: FromWorker) => {
  if (!process.connected) process.exit(0);
  process.send!(msg, undefined, {}, (err: Error | null) => {
    if (err) process.exit(0);
  });
};

// Ctrl-C reaches the whole process group: the coordinator decides, workers finish what is in flight.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});

/** The job this worker holds now; each 'job' message starts a new one. */
let current: JobRun | undefined;

process.on('message', (msg: ToWorker) => {
  switch (msg.type) {
    case 'job': {
      const job = new JobRun(msg.job, send);
      current = job;
      job.prepare().then(() => send({ type: 'ready' }), (err: Error) => send({ type: 'failed', message: err.message }));
      return;
    }
    case 'go':
      current!.run(msg.epochMs).then((result) => send({ type: 'done', result }), (err: Error) => send({ type: 'failed', message: err.message }));
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
process.on('disconnect', () => process.exit(0));
