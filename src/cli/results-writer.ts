// The results file of a running session, kept current: written within a second of each run, at once
// when a stop comes (before any cleanup, which a container's grace may not leave time for), and
// whole at the end.
import { writeResults } from '../results/file.js';
import { writeResultsOrExplain } from '../results/write.js';
import type { ResultsFile } from '../results/schema.js';

/** How stale the results file may be while a session runs: what a SIGKILL can cost at most. */
const RESULTS_EVERY_MS = 1_000;

export class ResultsWriter {
  readonly path: string;
  readonly doc: ResultsFile;
  private writing: Promise<void> = Promise.resolve();
  // Rewriting the whole file (redacted, then renamed into place) after every run would make a session
  // of many short runs quadratic. The file is kept current to within RESULTS_EVERY_MS instead, and
  // written whole at the end, a failure or a stop. Its clock starts with the session: one shorter
  // than that is written once, at its end (a second whole write is a visible share of a short
  // download's start-up).
  private savedAtMs = performance.now();

  constructor(path: string, doc: ResultsFile) {
    this.path = path;
    this.doc = doc;
  }

  /** Writes after the ones queued; a failure stays in the chain, for the final write to say. */
  save(): Promise<void> {
    this.writing = this.writing.then(() => writeResults(this.path, this.doc));
    return this.writing;
  }

  /** After a run: written unless the last write is less than RESULTS_EVERY_MS old. */
  saveSoon(): void {
    if (performance.now() - this.savedAtMs < RESULTS_EVERY_MS) return;
    this.savedAtMs = performance.now();
    // A failed write must not become an unhandled rejection (a crash with a stack trace): it stays
    // in the chain and is thrown, as one line, by the final save.
    this.save().catch(() => {});
  }

  /** Marks the session stopped (partial) and writes what it holds now, before any cleanup runs. */
  stopped(reason: string): void {
    this.doc.complete = false;
    this.doc.interrupted = reason;
    this.save().catch(() => {});
  }

  /** The last write, after those queued: undefined once written, else the one line that says why not. */
  async final(): Promise<string | undefined> {
    return this.writing.catch(() => {}).then(() => writeResultsOrExplain(this.path, this.doc));
  }
}
