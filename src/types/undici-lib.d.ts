// Types for the two undici modules the client imports directly (see client/undici.ts):
// the same classes and function undici's index re-exports, typed by undici's own types.
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const AgentClass: typeof Agent;
  export default AgentClass;
}

declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  function request(this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  export default request;
}

declare module 'undici/lib/core/errors.js' {
  import type { errors } from 'undici';
  const e: typeof errors;
  export default e;
}
