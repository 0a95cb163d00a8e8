// Network namespaces for the rate tests: run a command inside one, join two with a veth pair, and
// wait until a server started in another answers on its address.
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

export const inNs = (ns: string, ...args: string[]) =>
  execFileSync('ip', ['netns', 'exec', ns, ...args], { stdio: 'pipe' });
export const stderrOf = (err: unknown) =>
  String((err as { stderr?: Buffer }).stderr ?? err)
    .trim()
    .split('\n')[0];

/**
 * Connects from namespace `fromNs` to ip:port until it succeeds, at most `timeoutMs`; `what` names the server
 * in the error.
 */
export async function waitForPortInNs(
  fromNs: string,
  ip: string,
  port: number,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      inNs(
        fromNs,
        process.execPath,
        '-e',
        `require('net').connect(${port}, '${ip}').on('connect', () => process.exit(0)).on('error', ` +
          `() => process.exit(1))`,
      );
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`${what} did not start in the server namespace`);
}

/**
 * A veth pair `<name>s` (server end, in `serverNs`) and `<name>c` (moved to `clientNs`), addressed as
 * a /30, MTU 1500, up, with segmentation offloads off so that tbf meters frames of at most one MTU
 * (without ethtool, tbf still segments oversized packets itself). Throws what `ip` said.
 */
export function vethPair(
  name: string,
  serverNs: string,
  clientNs: string,
  serverIp: string,
  clientIp: string,
): void {
  // The pair is born in the server namespace; one end moves to the client's.
  inNs(serverNs, 'ip', 'link', 'add', `${name}s`, 'type', 'veth', 'peer', 'name', `${name}c`);
  inNs(serverNs, 'ip', 'link', 'set', `${name}c`, 'netns', clientNs);
  for (const [ns, dev, ip] of [
    [serverNs, `${name}s`, serverIp],
    [clientNs, `${name}c`, clientIp],
  ] as const) {
    inNs(ns, 'ip', 'addr', 'add', `${ip}/30`, 'dev', dev);
    inNs(ns, 'ip', 'link', 'set', dev, 'mtu', '1500', 'up');
    inNs(ns, 'ip', 'link', 'set', 'lo', 'up');
    try {
      inNs(ns, 'ethtool', '-K', dev, 'gso', 'off', 'tso', 'off', 'gro', 'off');
    } catch {
      // Without ethtool tbf still segments oversized packets itself.
    }
  }
}
