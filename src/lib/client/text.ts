// Text from the service that was not UTF-8 (docs/configuration.md, "Timeouts and limits"): the answer is
// still used, with U+FFFD where the bad bytes were, and the user is told once per answer
// which fields of which records were affected.

/** Keys that identify a record, in the order they are looked for. */
const ID_KEYS = ['id', 'transaction_id', 'event_id'] as const;
/** Fields named in one warning; the rest are counted. */
const NAMED = 3;

type Spot = { path: string; record?: string };

/**
 * One line naming the fields (by path, with their record's id when it has one) whose text
 * holds U+FFFD; undefined when none does.
 */
export function invalidTextNote(body: unknown): string | undefined {
  const spots: Spot[] = [];
  walk(body, [], undefined, spots);
  if (spots.length === 0) return undefined;
  const named = spots.slice(0, NAMED).map((s) => (s.record ? `${s.path} (record ${s.record})` : s.path));
  const more = spots.length > NAMED ? ` and ${spots.length - NAMED} more` : '';
  return `the answer was not valid UTF-8; U+FFFD (\uFFFD) stands for the bytes that could not be read in ${named.join(', ')}${more}`;
}

function walk(value: unknown, path: string[], record: string | undefined, spots: Spot[]): void {
  if (typeof value === 'string') {
    if (value.includes('\uFFFD')) spots.push({ path: path.length ? path.join('.') : 'body', ...(record !== undefined ? { record } : {}) });
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => walk(item, [...path, String(i)], record, spots));
    return;
  }
  const obj = value as Record<string, unknown>;
  const key = ID_KEYS.find((k) => typeof obj[k] === 'string' || typeof obj[k] === 'number');
  const id = key ? String(obj[key]) : record;
  for (const [k, v] of Object.entries(obj)) {
    // A key can be bad text too.
    if (k.includes('\uFFFD')) spots.push({ path: [...path, k].join('.'), ...(id !== undefined ? { record: id } : {}) });
    else walk(v, [...path, k], id, spots);
  }
}
