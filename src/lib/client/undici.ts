// The parts of undici the client uses, imported from the modules undici's own index
// assembles them from. The index loads all of undici (fetch, websockets, caches, mocks:
// ~1 MB of JavaScript, ~150 ms at the start of every API command here); these three
// modules are what an Agent and its request() need. undici is pinned to a minor (~7.30)
// because these paths are not its public API; the client tests fail if they move.
import Agent from 'undici/lib/dispatcher/agent.js';
import apiRequest from 'undici/lib/api/api-request.js';
import errors from 'undici/lib/core/errors.js';
import type { Dispatcher } from 'undici';
import { setFlagsFromString } from 'node:v8';

export { Agent, errors };
export type { Dispatcher };

/** `agent.request(options)`, as undici's index attaches it to every dispatcher. */
export function request(agent: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return apiRequest.call(agent, options);
}

/**
 * undici parses HTTP/1 with llhttp compiled to WebAssembly. V8 compiles it twice: a quick
 * baseline (Liftoff) and then, on background threads, an optimised tier that a short
 * process waits for at exit (~150 ms of every command here, for a parser that reads a few
 * kilobytes). Baseline code alone is plenty for a CLI's traffic. Set before the first
 * request compiles the parser; best-effort, like any V8 flag set after start-up.
 */
export function baselineWasmOnly(): void {
  setFlagsFromString('--liftoff-only');
}
