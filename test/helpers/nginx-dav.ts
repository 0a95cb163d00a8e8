// A real nginx with the WebDAV module on 127.0.0.1, for upload tests: /dav/ takes PUT and DELETE,
// /put-only/ takes PUT but refuses DELETE, and anything else is static (PUT answered 405). Started
// in the foreground as our child from a generated config in a temp dir, stopped by its pid.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { NGINX_PATH } from './requires.js';

export interface NginxDav {
  /** http://127.0.0.1:PORT */
  url: string;
  /** The server's root: /dav/x is rootDir/dav/x on disk. */
  rootDir: string;
  /** With `accessLog`: the file nginx logs each request to (combined format), unbuffered. */
  accessLog?: string;
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
 * A static nginx: one worker, files under `dir`/www, listening on `listen` (`port` or `ip:port`),
 * temp paths in `dir`, no access log: what the network-namespace tests serve from.
 */
export function staticNginxConfig(dir: string, listen: string, workerConnections: number): string {
  // As root, nginx's workers would drop to nobody and could not read our 0700 temp dir.
  const user = process.getuid?.() === 0 ? 'user root;\n' : '';
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((t) => `  ${t}_temp_path ${dir}/${t === 'client_body' ? 'body' : t};`)
    .join('\n');
  return `${user}worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections ${workerConnections}; }
http {
  access_log off;
  sendfile on;
${temp}
  server { listen ${listen}; root ${dir}/www; }
}
`;
}

function config(dir: string, port: number, accessLog?: string): string {
  // As root, nginx's workers would drop to nobody and could not write our 0700 temp dir.
  const user = process.getuid?.() === 0 ? 'user root;\n' : '';
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((t) => `  ${t}_temp_path ${dir}/tmp-${t};`)
    .join('\n');
  return `${user}worker_processes 1;
daemon off;
master_process on;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  access_log ${accessLog ?? 'off'};
  keepalive_requests 1000000;
${temp}
  server {
    listen 127.0.0.1:${port};
    root ${dir}/www;
    client_max_body_size 0;
    location /dav/ {
      dav_methods PUT DELETE;
      create_full_put_path on;
    }
    location /put-only/ {
      dav_methods PUT;
      create_full_put_path on;
    }
  }
}
`;
}

/** `accessLog`: log every request to dir/access.log (tests that count what reached the server). */
export async function startNginxDav(dir: string, opts: { accessLog?: boolean } = {}): Promise<NginxDav> {
  for (const d of ['www/dav', 'www/put-only', 'www/static']) mkdirSync(join(dir, d), { recursive: true });
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  const accessLog = opts.accessLog ? join(dir, 'access.log') : undefined;
  writeFileSync(conf, config(dir, port, accessLog));
  const errorLog = join(dir, 'error.log');
  const child: ChildProcess = spawn(NGINX_PATH, ['-c', conf, '-p', dir, '-e', errorLog], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/`, { method: 'HEAD' });
      await res.arrayBuffer();
      break;
    } catch {
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        const log = existsSync(errorLog)
          ? readFileSync(errorLog, 'utf8').trim().split('\n').slice(-2).join(' | ')
          : '';
        throw new Error(`nginx did not start${log ? `: ${log}` : ''}`);
      }
      await sleep(50);
    }
  }
  return {
    url: `http://127.0.0.1:${port}`,
    rootDir: join(dir, 'www'),
    ...(accessLog ? { accessLog } : {}),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
