// The zero-config target as the coordinator holds it: the embedded Azurite (azurite.ts) in a process
// of its own (azurite-process.ts), so that its allocations and garbage collections run beside the
// coordinator, not in it. The child dies with the coordinator: it exits when its IPC channel closes,
// whatever ended the coordinator. Every wait on it is bounded. Imported only where the embedded
// target is used (kept out of the bundles: see scripts/bundle.ts), so it names azurite.ts by type only.
import { fork, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';
import type { ServerClockView } from '../metrics/server-clock.js';
import type { EmbeddedOptions } from './azurite.js';
import type { FromAzurite, ToAzurite } from './azurite-protocol.js';
import { EarlyStart } from '../startup/start.js';
import { childEntry } from './child-entry.js';

/** Node's start, Azurite's modules (~1,000 files) and its server; a loaded machine is slow at all three. */
const START_MS = 60_000;
/** A reset or a span is one message each way; the child may be in a garbage collection. */
const ASK_MS = 10_000;
/** Closing the server and removing its scratch; then the child is killed. */
const STOP_MS = 10_000;
/** What the child writes to stderr while it starts is held back, up to this much. */
const MAX_HELD_CHARS = 64 * 1024;

export interface AzuriteProcess {
  endpoint: string;
  /** Over HTTPS: the throwaway certificate (PEM) its clients must trust. */
  ca?: string;
  account: string;
  key: string;
  /** The server's own clock, kept in the child and asked through IPC. */
  clock: ServerClockView;
  pid: number;
  /** Resolves if the process ends without being told to stop: `the embedded Azurite exited (…)`. */
  lost: Promise<string>;
  stop(): Promise<void>;
}

/**
 * The parent's Node flags but an inline script (`node -e …`, `-p`): fork passes them on, and the
 * child would run that script again instead of its own (and fork again: a chain).
 */
export function withoutInlineScript(execArgv: readonly string[]): string[] {
  const flags: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const flag = execArgv[i]!;
    if (flag === '-e' || flag === '--eval' || flag === '-p' || flag === '--print') i++;
    else if (!/^--(eval|print)=/.test(flag)) flags.push(flag);
  }
  return flags;
}

/**
 * Why a process ended, in words: SIGKILL is what the kernel's OOM killer sends (and what `kill -9`
 * does, so it is a question); another signal by name; an exit by its code.
 */
export function exitCause(code: number | null, signal: NodeJS.Signals | null): string {
  if (signal === 'SIGKILL') return 'killed by the kernel: out of memory?';
  if (signal) return `killed by ${signal}`;
  return `exit code ${code}`;
}

type Answer = Extract<FromAzurite, { id: number }>;
type Started = Omit<Extract<FromAzurite, { type: 'ready' }>, 'type'>;

/** The child's stderr, held until it is ready, then passed on as it comes. */
interface HeldStderr {
  passOn(): void;
  /**
   * Its error's line: Node prints an uncaught error as the source line, a caret, then "TypeError: …" or
   * "Error [CODE]: …".
   */
  errorLine(): string | undefined;
}

function holdStderr(child: ChildProcess): HeldStderr {
  let held: string | undefined = '';
  const stderr = child.stderr!;
  stderr.setEncoding('utf8');
  stderr.on('data', (text: string) => {
    if (held === undefined) process.stderr.write(text);
    else if (held.length < MAX_HELD_CHARS) held += text;
  });
  return {
    passOn() {
      if (held) process.stderr.write(held);
      held = undefined;
    },
    errorLine: () =>
      held
        ?.split('\n')
        .find((line) => /^\w*Error\b/.test(line))
        ?.trim(),
  };
}

/** One forked Azurite: its start, its answers by id, its end. */
class AzuriteChild {
  readonly child: ChildProcess;
  readonly options: EmbeddedOptions;
  readonly ready: Promise<Started>;
  private readonly pending = new Map<
    number,
    { type: Answer['type']; resolve: (a: Answer) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }
  >();
  private nextId = 0;
  private readonly exited: Promise<void>;
  private gone?: string;
  private stopping = false;
  /** Resolves if the process ends unasked, with the line that says so. */
  readonly lost: Promise<string>;

  constructor(options: EmbeddedOptions) {
    this.options = options;
    const entry = childEntry(
      new URL('./azurite-process.js', import.meta.url),
      import.meta.url.endsWith('.ts'),
      withoutInlineScript(process.execArgv),
    );
    // Its stderr is ours, but held until it is ready: a child that dies while starting (a module
    // that does not load) is named in one line, with its own error's, not with its stack.
    this.child = fork(entry.path, [], {
      execArgv: entry.execArgv,
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
    const stderr = holdStderr(this.child);
    // A message to a child that has just died fails with EPIPE before 'exit' says so: its exit names the
    // death.
    this.child.on('error', () => {});
    let lost: (line: string) => void = () => {};
    this.lost = new Promise((resolve) => (lost = resolve));
    this.exited = new Promise((resolve) =>
      this.child.once('close', (code, signal) => {
        this.gone = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        // Lost first: whoever follows it (the session's stop) hears of it before a question's failure.
        if (!this.stopping) lost(`the embedded Azurite exited (${exitCause(code, signal)})`);
        for (const [id, p] of this.pending)
          this.settle(id, () => p.reject(new Error(`the embedded Azurite ${this.gone}`)));
        resolve();
      }),
    );
    this.ready = this.started(stderr);
    // A child started early that nobody takes (the command failed first) must not crash us when it fails.
    this.ready.catch(() => {});
    this.child.on('message', (m: FromAzurite) => {
      if (m.type !== 'reset' && m.type !== 'span') return;
      const p = this.pending.get(m.id);
      if (p && p.type === m.type) this.settle(m.id, () => p.resolve(m));
    });
    this.send({ type: 'start', options });
  }

  /** Resolves once the child says it is ready; fails with its own error's line if it dies first. */
  private started(stderr: HeldStderr): Promise<Started> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.child.kill('SIGKILL');
        reject(new Error(`the embedded Azurite did not start within ${START_MS / 1000} s`));
      }, START_MS);
      timer.unref();
      const done = () => {
        clearTimeout(timer);
        this.child.off('message', onStart);
      };
      const onStart = (m: FromAzurite) => {
        if (m.type === 'ready') {
          done();
          stderr.passOn();
          resolve({ endpoint: m.endpoint, account: m.account, key: m.key, ...(m.ca ? { ca: m.ca } : {}) });
        } else if (m.type === 'failed') {
          done();
          reject(new Error(`the embedded Azurite did not start: ${m.message}`));
        }
      };
      this.child.on('message', onStart);
      void this.exited.then(() => {
        done();
        const line = stderr.errorLine();
        reject(new Error(`the embedded Azurite ${this.gone} before it was ready${line ? `: ${line}` : ''}`));
      });
    });
  }

  private send(msg: ToAzurite): void {
    if (this.child.connected) this.child.send(msg);
  }

  private settle(id: number, then: () => void): void {
    const p = this.pending.get(id);
    if (!p) return;
    clearTimeout(p.timer);
    this.pending.delete(id);
    then();
  }

  /** One question to the child and its answer, within ASK_MS. */
  ask<T extends Answer['type']>(type: T): Promise<Extract<Answer, { type: T }>> {
    if (this.gone || !this.child.connected)
      return Promise.reject(new Error(`the embedded Azurite ${this.gone ?? 'is gone'}`));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          this.settle(id, () =>
            reject(new Error(`the embedded Azurite did not answer ${type} within ${ASK_MS / 1000} s`)),
          ),
        ASK_MS,
      );
      this.pending.set(id, { type, resolve: resolve as (a: Answer) => void, reject, timer });
      this.send({ type, id });
    });
  }

  /** Holds this process open (or not, while it is only started early) for as long as the child runs. */
  hold(held: boolean): void {
    // Its stderr pipe holds the event loop too (a net.Socket).
    const pipe = this.child.stderr as Socket | null;
    if (held) {
      this.child.ref();
      this.child.channel?.ref();
      pipe?.ref();
    } else {
      this.child.unref();
      this.child.channel?.unref();
      pipe?.unref();
    }
  }

  get up(): boolean {
    return this.gone === undefined && this.child.connected;
  }

  /** Asks the child to close its server and exit; killed when it has not within STOP_MS. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.gone) return;
    this.send({ type: 'stop' });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), STOP_MS);
    try {
      await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The embedded Azurite forked early; once a target has taken its process, a late early start (its
 * import resolved after) is none.
 */
const early = new EarlyStart<AzuriteChild>();

const sameOptions = (a: EmbeddedOptions, b: EmbeddedOptions) =>
  Boolean(a.tls) === Boolean(b.tls) &&
  Boolean(a.oauth) === Boolean(b.oauth) &&
  a.memoryLimitBytes === b.memoryLimitBytes;

/**
 * Forks the embedded Azurite now, once its options are known and before the coordinator's own set-up,
 * so that their starts overlap. It does not hold this process open: a command that fails before it
 * opens its target still exits, and the child with it (its channel closes).
 */
export function startAzuriteEarly(options: EmbeddedOptions = {}): void {
  early.start(() => {
    const child = new AzuriteChild(options);
    child.hold(false);
    return child;
  });
}

/** The embedded Azurite in a process of its own, ready to serve: the one started early when it fits. */
export async function startAzuriteProcess(options: EmbeddedOptions = {}): Promise<AzuriteProcess> {
  let child = early.take();
  if (child && !(child.up && sameOptions(child.options, options))) {
    void child.stop();
    child = undefined;
  }
  child ??= new AzuriteChild(options);
  child.hold(true);
  const azurite = child;
  let started: Started;
  try {
    started = await azurite.ready;
  } catch (err) {
    await azurite.stop();
    throw err;
  }
  return {
    ...started,
    pid: azurite.child.pid!,
    lost: azurite.lost,
    clock: {
      reset: async () => {
        await azurite.ask('reset');
      },
      span: async () => (await azurite.ask('span')).spanMs,
    },
    stop: () => azurite.stop(),
  };
}
