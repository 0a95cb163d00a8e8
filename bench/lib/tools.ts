// Finds the peers (curl, aria2c, nginx, wrk, iperf3, hyperfine, azcopy). Missing Debian tools are installed
// only when we are root with apt available and installing was not turned off; otherwise they are skipped with
// the reason, never counted as zero.
import { accessSync, constants, copyFileSync, chmodSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { runProcess, runs, tail } from './proc.ts';

export interface Tool {
  name: string;
  path?: string;
  /** Why it cannot be used; set exactly when path is not. */
  missing?: string;
}

const DEBIAN_PACKAGES: Record<string, string> = {
  curl: 'curl',
  aria2c: 'aria2',
  nginx: 'nginx',
  wrk: 'wrk',
  iperf3: 'iperf3',
  hyperfine: 'hyperfine',
  dd: 'coreutils',
  fallocate: 'util-linux',
};

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function which(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/sbin', '/usr/bin', '/bin'];
  for (const d of dirs) if (d && executable(join(d, name))) return join(d, name);
  return undefined;
}

let aptUpdated = false;
async function aptInstall(packages: readonly string[]): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return 'not root, so not installed';
  if (!which('apt-get')) return 'no apt-get on this machine';
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (!aptUpdated) {
    const u = await runProcess('apt-get', ['update', '-qq'], { env, timeoutMs: 300_000 });
    if (u.code !== 0) return `apt-get update failed: ${tail(u, 1)}`;
    aptUpdated = true;
  }
  const r = await runProcess('apt-get', ['install', '-y', '-qq', ...packages], { env, timeoutMs: 600_000 });
  return r.code === 0 ? undefined : `apt-get install ${packages.join(' ')} failed: ${tail(r, 1)}`;
}

export interface ToolOptions {
  install: boolean;
  log: (line: string) => void;
}

/** Resolves the Debian tools, installing the missing ones in one apt-get call when allowed. */
export async function findDebianTools(
  names: readonly string[],
  opts: ToolOptions,
): Promise<Map<string, Tool>> {
  const found = new Map<string, Tool>();
  const missing = names.filter((n) => !which(n));
  let why: string | undefined = missing.length ? 'not installed' : undefined;
  if (missing.length && opts.install) {
    const pkgs = [...new Set(missing.map((n) => DEBIAN_PACKAGES[n] ?? n))];
    opts.log(`installing ${pkgs.join(', ')} with apt-get`);
    const failed = await aptInstall(pkgs);
    why = failed ? `not installed (${failed})` : 'not installed (apt-get gave no such binary)';
  } else if (missing.length) {
    why = 'not installed (installing turned off)';
  }
  for (const name of names) {
    const path = which(name);
    found.set(name, path ? { name, path } : { name, missing: why ?? 'not installed' });
  }
  return found;
}

/**
 * azcopy from the npm package @azure-tools/azcopy-linux. The package ships its binary without the
 * executable bit, so it is copied into our temp dir and made executable. It links libsecret.
 */
export async function findAzcopy(tmpDir: string, opts: ToolOptions): Promise<Tool> {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return { name: 'azcopy', missing: `no azcopy package for ${process.platform}/${process.arch}` };
  let shipped: string;
  try {
    const require = createRequire(import.meta.url);
    shipped = (require('@azure-tools/azcopy-linux') as { AzCopyExe64: string }).AzCopyExe64;
  } catch {
    return {
      name: 'azcopy',
      missing: 'not installed (npm devDependency @azure-tools/azcopy-linux missing: run npm ci)',
    };
  }
  const path = join(tmpDir, 'azcopy');
  copyFileSync(shipped, path);
  chmodSync(path, 0o755);
  if (await runs(path, ['--version'])) return { name: 'azcopy', path };
  // The usual cause is the missing libsecret-1.so.0.
  if (opts.install) {
    opts.log('azcopy does not start; installing libsecret-1-0 with apt-get');
    const failed = await aptInstall(['libsecret-1-0']);
    if (!failed && (await runs(path, ['--version']))) return { name: 'azcopy', path };
    return {
      name: 'azcopy',
      missing: `does not start (needs libsecret-1-0; ${failed ?? 'still failing after install'})`,
    };
  }
  return { name: 'azcopy', missing: 'does not start (needs Debian libsecret-1-0; installing turned off)' };
}
