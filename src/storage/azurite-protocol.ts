// The messages between the coordinator and the embedded Azurite's own process (azurite-child.ts
// forks it, azurite-process.ts is its main): start it, ask its server clock, stop it.
import type { EmbeddedOptions } from './azurite.js';

export type ToAzurite =
  | { type: 'start'; options: EmbeddedOptions }
  /** Forget the data requests seen so far: a run is about to be released. Answered once done. */
  | { type: 'reset'; id: number }
  /** The span of the data requests since the last reset (ServerClock.span). */
  | { type: 'span'; id: number }
  /** Close the server, remove its scratch, exit. */
  | { type: 'stop' };

export type FromAzurite =
  /**
   * `key`: Azurite's published development key. `ca`: over HTTPS, the throwaway certificate (PEM) clients
   * must trust.
   */
  | { type: 'ready'; endpoint: string; account: string; key: string; ca?: string }
  | { type: 'failed'; message: string }
  | { type: 'reset'; id: number }
  | { type: 'span'; id: number; spanMs?: number };
