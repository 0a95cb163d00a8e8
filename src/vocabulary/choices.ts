// The closed sets of values some options take, and their types: plain data at the bottom of the
// layers, so that the logger, the workers and storage can name them without importing the option
// table (which takes the strategies' names from their registry, above them).

export const LOG_LEVELS = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const SINKS = ['discard', 'memory', 'file', 'sparse-file'] as const;
export type SinkKind = (typeof SINKS)[number];
export const HTTP_CLIENTS = ['raw', 'node'] as const;
/** Which HTTP client a run uses (--http-client); the client itself is transport/http-client.ts. */
export type HttpClientName = (typeof HTTP_CLIENTS)[number];
export const CONNECTION_MODES = ['cold', 'warm'] as const;
export type ConnectionMode = (typeof CONNECTION_MODES)[number];
/** --arrival: an open loop's sends evenly spaced, or a Poisson process of the same mean rate. */
export const ARRIVALS = ['uniform', 'poisson'] as const;
export type Arrival = (typeof ARRIVALS)[number];
export const FORMATS = ['console', 'md', 'csv', 'json', 'html', 'junit'] as const;
export type ReportFormat = (typeof FORMATS)[number];
export const AUTH_MODES = ['key', 'sas', 'connection-string', 'entra', 'anonymous'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];
