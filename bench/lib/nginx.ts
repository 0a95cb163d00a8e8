// Our own nginx on 127.0.0.1: a generated config in a temp dir (sendfile on, DAV PUT and DELETE under
// /dav/, an access log in the server-clock format), started in the foreground as our child and
// stopped by its pid.
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { NGINX_CLOCK_FORMAT, nginxClock, type ServerClock } from './server-clock.ts';

export interface Nginx {
  port: number;
  /** Files under here are served at http://127.0.0.1:PORT/<name>. */
  rootDir: string;
  /** PUT http://127.0.0.1:PORT/dav/<name> writes here: on /dev/shm where there is one (see davBase). */
  davDir: string;
  /** Where the DAV files live, for the report. */
  davStorage: string;
  url(name: string): string;
  /** nginx's own view of each run, from its access log. */
  clock: ServerClock;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * The DAV folder (and nginx's body temp files, which it renames into place) on a memory filesystem
 * where there is one: the upload case measures HTTP PUTs, and page-cache writeback of a disk made
 * the same run take 0.6 s or 2 s.
 */
function davBase(dir: string): { base: string; storage: string; temporary: boolean } {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return {
      base: mkdtempSync('/dev/shm/blob-cacher-bench-dav-'),
      storage: 'tmpfs (/dev/shm)',
      temporary: true,
    };
  } catch {
    return { base: join(dir, 'davroot'), storage: `disk (${dir}; no writable /dev/shm)`, temporary: false };
  }
}

function config(dir: string, davRoot: string, port: number): string {
  // As root, nginx's workers would drop to nobody and could not read our 0700 temp dir.
  const user = process.getuid?.() === 0 ? 'user root;\n' : '';
  return `${user}worker_processes auto;
daemon off;
master_process on;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 4096; }
http {
  ${NGINX_CLOCK_FORMAT}
  access_log ${dir}/access.log bench_clock;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  keepalive_requests 1000000;
  default_type application/octet-stream;
  client_body_temp_path ${davRoot}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  server {
    listen 127.0.0.1:${port};
    root ${dir}/www;
    location /dav/ {
      root ${davRoot};
      # DELETE too: a run cleans up what it wrote, and that time is part of its process wall.
      dav_methods PUT DELETE;
      create_full_put_path on;
      client_max_body_size 0;
    }
  }
}
`;
}

async function waitUntilServing(port: number, child: ChildProcess, errorLog: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'HEAD' });
      await res.arrayBuffer();
      return;
    } catch {
      await sleep(50);
    }
  }
  let log = '';
  try {
    log = readFileSync(errorLog, 'utf8').trim().split('\n').slice(-2).join(' | ');
  } catch {
    // no log yet
  }
  child.kill('SIGKILL');
  throw new Error(`nginx did not start${log ? `: ${log}` : ''}`);
}

export async function startNginx(nginxPath: string, dir: string): Promise<Nginx> {
  for (const d of ['www', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(dir, d), { recursive: true });
  const dav = davBase(dir);
  for (const d of ['dav', 'body']) mkdirSync(join(dav.base, d), { recursive: true });
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  writeFileSync(conf, config(dir, dav.base, port));
  const child = spawn(nginxPath, ['-c', conf, '-p', dir, '-e', join(dir, 'error.log')], { stdio: 'ignore' });
  try {
    await waitUntilServing(port, child, join(dir, 'error.log'));
  } catch (err) {
    if (dav.temporary) rmSync(dav.base, { recursive: true, force: true });
    throw err;
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    port,
    rootDir: join(dir, 'www'),
    davDir: join(dav.base, 'dav'),
    davStorage: dav.storage,
    url: (name) => `http://127.0.0.1:${port}/${name}`,
    clock: nginxClock(join(dir, 'access.log')),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        // SIGTERM to the master (our child): it stops its own workers.
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      if (dav.temporary) rmSync(dav.base, { recursive: true, force: true });
    },
  };
}
