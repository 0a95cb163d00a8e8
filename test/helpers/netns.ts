// Network namespaces for the rate tests: run a command inside one, and wait until a server started
// in another answers on its address.
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

export const inNs = (ns: string, ...args: string[]) => execFileSync('ip', ['netns', 'exec', ns, ...args], { stdio: 'pipe' });
export const stderrOf = (err: unknown) => String((err as { stderr?: Buffer }).stderr ?? err).trim().split('\n')[0];

/** Connects from namespace `fromNs` to ip:port until it succeeds, at most `timeoutMs`; `what` names the server in the error. */
export async function waitForPortInNs(fromNs: string, ip: string, port: number, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      inNs(fromNs, process.execPath, '-e', `require('net').connect(${port}, '${ip}').on('connect', () => process.exit(0)).on('error', () => process.exit(1))`);
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`${what} did not start in the server namespace`);
}
