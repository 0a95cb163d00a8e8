// The embedded Azurite's own process, forked by the coordinator (azurite-child.ts): its allocations
// and garbage collections (full mark-compacts while it serves a large object) do not stall the
// coordinator's set-up, collection and verification. The server's clock lives here, beside the http
// server it listens on, and is asked through IPC. It serves until told to stop or until its parent
// is gone (its IPC channel closes, even after a SIGKILL): then it closes, removes its scratch, exits.
import { ServerClock } from '../metrics/server-clock.js';
import { startEmbeddedAzurite, type EmbeddedAzurite } from './azurite.js';
import type { FromAzurite, ToAzurite } from './azurite-protocol.js';

/** How long closing the server and removing its scratch may take before the process exits anyway. */
const STOP_MS = 5_000;

let server: { azurite: EmbeddedAzurite; clock: ServerClock } | undefined;
let stopping = false;

/** To a parent that is gone nothing is sent: its 'disconnect' ends this process. */
function send(msg: FromAzurite, then?: () => void): void {
  if (!process.connected) return then?.();
  process.send!(msg, undefined, {}, () => then?.());
}

function stopAndExit(code: number): void {
  if (stopping) return;
  stopping = true;
  setTimeout(() => process.exit(code), STOP_MS).unref();
  const running = server;
  running?.clock.close();
  void (running ? running.azurite.stop() : Promise.resolve())
    .catch(() => {})
    .finally(() => process.exit(code));
}

// Ctrl-C, a hang-up or a SIGTERM reach the whole process group: the coordinator decides, and may
// still clean up (remove its fixtures) through this server before it says stop.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
process.on('SIGHUP', () => {});
process.on('disconnect', () => stopAndExit(0));

process.on('message', (msg: ToAzurite) => {
  switch (msg.type) {
    case 'start':
      startEmbeddedAzurite(msg.options).then(
        (azurite) => {
          server = { azurite, clock: new ServerClock(azurite.httpServer) };
          if (stopping) return stopAndExit(0);
          send({
            type: 'ready',
            endpoint: azurite.endpoint,
            account: azurite.account,
            key: azurite.key,
            ...(azurite.ca ? { ca: azurite.ca } : {}),
          });
        },
        (err: Error) =>
          send({ type: 'failed', message: String(err.message).split('\n')[0]! }, () => stopAndExit(1)),
      );
      return;
    case 'reset':
      server?.clock.reset();
      send({ type: 'reset', id: msg.id });
      return;
    case 'span': {
      const spanMs = server?.clock.span();
      send({ type: 'span', id: msg.id, ...(spanMs === undefined ? {} : { spanMs }) });
      return;
    }
    case 'stop':
      stopAndExit(0);
      return;
  }
});
