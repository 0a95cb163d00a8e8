// The secrets --metrics holds, registered with the redaction as the options are loaded (before the
// first log line that could show them): apart from the live-metrics code, which loads only when asked.
import type { MetricsSink } from '../config/options.js';
import { registerCredential, registerSecret } from '../log/logger.js';

/** Query parameters of a write URL that are secrets (InfluxDB v1's password, tokens some proxies take). */
const SECRET_PARAMS = ['p', 'password', 'token', 'sig', 'api_key', 'apikey'];

/** Registers every secret --metrics holds: the token, and a URL's password and secret query values. */
export function registerMetricsSecrets(sinks: readonly MetricsSink[] | undefined, token?: string): void {
  registerSecret(token);
  for (const s of sinks ?? []) {
    if (!('url' in s)) continue;
    registerCredential(s.url);
    const u = new URL(s.url);
    registerSecret(u.password);
    for (const name of SECRET_PARAMS) for (const v of u.searchParams.getAll(name)) registerSecret(v);
  }
}
