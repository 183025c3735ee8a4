// Targeted faults (docs/emulator.md, "Control plane"): rules added at run time, unlike
// `--fault-rate`, which draws at random on every request. A webhook rule fails deliveries
// through the emulator's own delivery path, so attempts, retries and telemetry show it.
// The validation here is shared by the control plane and the CLI, so the CLI refuses the
// same input the server would, without sending anything.
import { EVENT_TYPES } from '../lib/vocabulary.js';
import type { FaultInput, FaultRule, RouteFaultInput, WebhookFaultInput } from './types.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', '*'];
const MAX_NEXT = 1_000_000;
/** As `--latency`: long enough to trip any client timeout worth testing. */
export const MAX_FAULT_LATENCY_MS = 60_000;

type RoutePattern = { method: string; segments: string[] };

type Rule = FaultRule & { pattern?: RoutePattern };

/** `METHOD PATH` → its parts, or a message saying what is wrong. */
export function parseRoutePattern(text: string): RoutePattern | string {
  const m = /^\s*(\S+)\s+(\S+)\s*$/.exec(text);
  if (!m) return `route "${text.slice(0, 80)}" must be 'METHOD PATH', e.g. 'GET /transactions/*'`;
  const method = m[1]!.toUpperCase();
  if (!METHODS.includes(method)) return `route method "${m[1]}" must be one of ${METHODS.join(', ')}`;
  const path = m[2]!;
  if (!path.startsWith('/')) return `route path "${path}" must start with / (it is relative to the base path, e.g. /transactions/*)`;
  if (/[?#]/.test(path)) return `route path "${path}" must not carry a query or fragment`;
  if (path.startsWith('/api/v1/')) return `route path "${path}" is relative to the base path: drop the /api/v1/partner prefix`;
  const segments = path.split('/').slice(1);
  if (segments[segments.length - 1] === '' && segments.length > 1) segments.pop();
  if (segments.some((s) => s === '')) return `route path "${path}" has an empty segment`;
  return { method, segments };
}

/** Whether a pattern matches a request's path segments, or (`template`) can match an endpoint's, whose `:param` segments match anything. */
function patternMatches(pattern: RoutePattern, method: string, segments: string[], template = false): boolean {
  if (pattern.method !== '*' && pattern.method !== method) return false;
  return segments.length === pattern.segments.length && pattern.segments.every((seg, i) => seg === '*' || seg === segments[i] || (template && segments[i]!.startsWith(':')));
}

function isWebhook(input: FaultInput): input is WebhookFaultInput {
  return (input as WebhookFaultInput).webhook === true;
}

export function faultProblem(input: FaultInput): string | null {
  if (typeof input !== 'object' || input === null) return 'a fault rule must be an object';
  if (input.next !== undefined && !(Number.isInteger(input.next) && input.next >= 1 && input.next <= MAX_NEXT)) {
    return `next must be a whole number from 1 to ${MAX_NEXT}`;
  }
  if (isWebhook(input)) {
    if (!(Number.isInteger(input.status) && input.status >= 300 && input.status <= 599)) {
      return 'a webhook fault needs a status from 300 to 599 (what the partner endpoint seems to answer)';
    }
    if (input.eventType !== undefined && !(EVENT_TYPES as readonly string[]).includes(input.eventType)) {
      return `event type "${String(input.eventType).slice(0, 60)}" must be one of ${EVENT_TYPES.join(', ')}`;
    }
    if ('route' in input && (input as { route?: unknown }).route !== undefined) return 'a fault is either a route fault or a webhook fault, not both';
    return null;
  }
  const rule = input as RouteFaultInput;
  if (typeof rule.route !== 'string') return 'a route fault needs route (METHOD PATH), or webhook for a delivery fault';
  const pattern = parseRoutePattern(rule.route);
  if (typeof pattern === 'string') return pattern;
  const effects = [rule.status !== undefined, rule.dropAfterCommit === true, rule.latencyMs !== undefined].filter(Boolean).length;
  if (effects !== 1) return 'a route fault takes exactly one of status, drop-after-commit and latency';
  if (rule.status !== undefined && !(Number.isInteger(rule.status) && rule.status >= 400 && rule.status <= 599)) {
    return 'status must be an error status from 400 to 599';
  }
  if (rule.latencyMs !== undefined && !(Number.isInteger(rule.latencyMs) && rule.latencyMs >= 1 && rule.latencyMs <= MAX_FAULT_LATENCY_MS)) {
    return `latency must be a whole number of milliseconds from 1 to ${MAX_FAULT_LATENCY_MS}`;
  }
  return null;
}

export class FaultRules {
  private rules: Rule[] = [];
  private counter = 0;

  /** A route rule that can match none of `endpoints` is refused: a typo would never fire, and the test pass for the wrong reason. */
  add(input: FaultInput, endpoints: readonly { method: string; path: string }[]): FaultRule {
    const problem = faultProblem(input);
    if (problem) throw new RangeError(problem);
    const id = `flt_${++this.counter}`;
    let rule: Rule;
    if (isWebhook(input)) {
      rule = { id, kind: 'webhook', status: input.status, remaining: input.next ?? null, applied: 0, eventType: input.eventType };
    } else {
      const pattern = parseRoutePattern(input.route) as RoutePattern;
      if (!endpoints.some((e) => patternMatches(pattern, e.method, e.path.split('/').slice(1), true))) {
        throw new RangeError(`route ${input.route} matches no endpoint of the API (paths are relative to the base path, e.g. GET /transactions/*)`);
      }
      const effect = { status: input.status, dropAfterCommit: input.dropAfterCommit || undefined, latencyMs: input.latencyMs };
      rule = { id, kind: 'route', route: `${pattern.method} /${pattern.segments.join('/')}`, pattern, remaining: input.next ?? null, applied: 0, ...effect };
    }
    this.rules.push(rule);
    return view(rule);
  }

  list(): FaultRule[] {
    return this.rules.map(view);
  }

  clear(): number {
    const n = this.rules.length;
    this.rules = [];
    return n;
  }

  /** The first route rule matching this request, used once; undefined when none does. */
  takeRoute(method: string, relativePath: string): FaultRule | undefined {
    if (this.rules.length === 0) return undefined;
    let segments: string[] | undefined;
    return this.take((rule) => rule.kind === 'route' && patternMatches(rule.pattern!, method, (segments ??= relativePath.split('/').slice(1))));
  }

  /** The first webhook rule for this event type, used once. */
  takeWebhook(eventType: string): FaultRule | undefined {
    if (this.rules.length === 0) return undefined;
    return this.take((rule) => rule.kind === 'webhook' && (rule.eventType === undefined || rule.eventType === eventType));
  }

  private take(matches: (rule: Rule) => boolean): FaultRule | undefined {
    const at = this.rules.findIndex(matches);
    if (at < 0) return undefined;
    const rule = this.rules[at]!;
    rule.applied++;
    if (rule.remaining !== null && --rule.remaining === 0) this.rules.splice(at, 1);
    return rule;
  }
}

function view(rule: Rule): FaultRule {
  const { pattern: _pattern, ...rest } = rule;
  return rest;
}
