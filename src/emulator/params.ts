// Request validation at the edge: JSON bodies through the shared zod schemas, query
// parameters and path ids. Every failure is a 400 BAD_REQUEST whose message names the
// field, so a partner can fix the call without reading our source.
import * as z from 'zod/mini';
import { rfc3339Ms } from '../lib/input/dates.js';
import { Uuid } from '../lib/schemas.js';
import { badRequest } from './envelope.js';

export type Query = { get(name: string): string | undefined };

export function parseJsonObject(raw: string): Record<string, unknown> {
  let value: unknown;
  if (raw.trim() === '') throw badRequest('request body is required: send a JSON object');
  try {
    value = JSON.parse(raw);
  } catch {
    throw badRequest('request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw badRequest('request body must be a JSON object');
  }
  if (depthOver(value, MAX_BODY_DEPTH)) throw badRequest(`request body is nested more than ${MAX_BODY_DEPTH} levels deep`);
  return value as Record<string, unknown>;
}

/**
 * The partner API's bodies are flat; a body nested deeper than this is refused, since
 * comparing it with an earlier request of the same Idempotency-Key (key order aside)
 * would otherwise recurse past the stack (docs/emulator.md, "Wire").
 */
export const MAX_BODY_DEPTH = 32;

/** Whether `value` nests objects or arrays more than `limit` levels deep; iterative. */
function depthOver(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

export function validate<S extends z.core.$ZodType>(schema: S, value: Record<string, unknown>): z.infer<S> {
  const parsed = z.safeParse(schema, value);
  if (!parsed.success) throw badRequest(describeIssues(parsed.error.issues, value));
  return parsed.data;
}

export function parseBody<S extends z.core.$ZodType>(schema: S, raw: string): z.infer<S> {
  return validate(schema, parseJsonObject(raw));
}

/** An object that refuses unknown fields (the control plane's bodies: a typo would silently do nothing). */
export function strictBody<T extends z.core.$ZodLooseShape>(shape: T) {
  const known = Object.keys(shape).join(', ');
  return z.strictObject(shape, { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown field ${String(issue.keys[0]).slice(0, 40)}; this takes ${known}` : undefined) });
}

function describeIssues(issues: readonly z.core.$ZodIssue[], input: Record<string, unknown>): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const field = issue.path.join('.');
      if (field === '') return issue.message;
      const given = issue.path.length === 1 ? input[String(issue.path[0])] : {};
      if (issue.code === 'invalid_type' && given === undefined) return `${field} is required`;
      if (issue.code === 'too_small' && given === '') return `${field} must not be empty`;
      return `${field}: ${issue.message}`;
    })
    .join('; ');
}

export function requireUuid(name: string, value: string): string {
  if (!Uuid.safeParse(value).success) throw badRequest(`${name} must be a UUID, got "${truncate(value)}"`);
  return value.toLowerCase();
}

/** `limit`: 1 to 100 (the spec, Limits); the default is per list and documented. */
export function parseLimit(query: Query, fallback: number): number {
  const raw = query.get('limit');
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,3}$/.test(raw) || Number(raw) < 1 || Number(raw) > 100) {
    throw badRequest(`limit must be an integer from 1 to 100, got "${truncate(raw)}"`);
  }
  return Number(raw);
}

/** An RFC 3339 date-time with a zone, as milliseconds; undefined when absent. */
export function parseDateParam(query: Query, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === undefined || raw === '') return undefined;
  const ms = rfc3339Ms(raw);
  if (ms === undefined) {
    throw badRequest(`${name} must be an RFC 3339 date-time such as 2026-01-31T23:59:59Z, got "${truncate(raw)}"`);
  }
  return ms;
}

export function requireDateParam(query: Query, name: string): number {
  const ms = parseDateParam(query, name);
  if (ms === undefined) throw badRequest(`${name} is required (an RFC 3339 date-time such as 2026-01-31T00:00:00Z)`);
  return ms;
}

/** A created_at window; `to` before `from` is a 400 rather than an empty page, to catch swapped arguments. */
export function checkOrder(from: number, to: number): void {
  if (to < from) throw badRequest('to must not be before from');
}

export function parseEnumParam<T extends string>(query: Query, name: string, allowed: readonly T[]): T | undefined {
  const raw = query.get(name);
  if (raw === undefined || raw === '') return undefined;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw badRequest(`${name} must be one of ${allowed.join(', ')}; got "${truncate(raw)}"`);
  }
  return raw as T;
}

export function parseBoolParam(query: Query, name: string): boolean {
  const raw = query.get(name);
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  throw badRequest(`${name} must be true or false, got "${truncate(raw)}"`);
}

/** A free-text filter compared case-insensitively (token and network names). */
export function parseTextParam(query: Query, name: string): string | undefined {
  const raw = query.get(name);
  if (raw === undefined || raw === '') return undefined;
  if (raw.length > 64) throw badRequest(`${name} is too long (at most 64 characters)`);
  return raw.toLowerCase();
}

function truncate(value: string): string {
  return value.length > 80 ? `${value.slice(0, 77)}...` : value;
}
