// Processes as the tests see them, read from /proc: pgrep (procps) is not on every machine.
import { readdirSync, readFileSync } from 'node:fs';

/** The pids whose parent is `parent`. */
export function childPids(parent: number): number[] {
  return readdirSync('/proc')
    .filter((pid) => {
      try {
        // "pid (comm) state ppid …": comm may hold spaces and parentheses.
        return (
          /^\d+$/.test(pid) &&
          readFileSync(`/proc/${pid}/stat`, 'utf8')
            .replace(/^.*\) /s, '')
            .split(' ')[1] === String(parent)
        );
      } catch {
        return false; // gone since the listing
      }
    })
    .map(Number);
}

/** Whether a process with this pid exists (signal 0 checks without sending anything). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether `pid` runs the embedded Azurite's own process (storage/azurite-process), not a worker. */
export function isAzuriteProcess(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('azurite-process');
  } catch {
    return false; // gone
  }
}
