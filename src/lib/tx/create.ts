// Creating a transaction safely (the CLI contract, "Behaviour that matters"): one
// Idempotency-Key for every attempt, and when a create gets no answer the reference
// decides what happened. Used by `tx create` and by the sandbox walk.
import { checkCreated, createDifferences, transactionByReference } from '../client/checked-calls.js';
import type { Api } from '../client/api.js';
import { ApiError, CliError, EXIT, NetworkError } from '../errors.js';
import { shellQuote } from '../input/values.js';
import type { CreateTransactionRequest, Transaction, TransactionSummary } from '../schemas.js';
import { describeOnce, isNotFound, resultUnknown } from './errors.js';
import { explainPair } from './pair.js';
import { SANDBOX_PAIR } from '../vocabulary.js';

export type RecoveryOptions = {
  /** Progress notes for stderr (what is being tried and why). */
  note: (line: string) => void;
  /** The command line that retries this create safely, printed when whether it was made stays unknown. */
  retry: string;
  /** Whether the user chose the idempotency key (changes the hint for a reused key). */
  keyGiven: boolean;
  /** The token the quote was for, when the caller made the quote (quote mode sends none). */
  token?: string;
};

/** The create, and the recovery when it gets no answer (the CLI contract, "Behaviour that matters"). */
export async function createWithRecovery(
  api: Api,
  body: CreateTransactionRequest,
  key: string,
  { note, retry, keyGiven, token }: RecoveryOptions,
): Promise<{ tx: TransactionSummary | Transaction; recovered: boolean }> {
  const ref = body.merchant_reference;
  const say = describeOnce();
  // An answer for another request is final: sending the same key again would only replay it.
  const send = async () => checkCreated(await api.transactions.create(body, key), body, key, token);
  let lastError: unknown;

  try {
    return { tx: await send(), recovered: false };
  } catch (err) {
    if (err instanceof NetworkError && err.notSent) {
      // The service never got it: nothing to recover, and nothing was created.
      throw new CliError(
        `transaction ${JSON.stringify(ref)} was not created: ${err.message}; nothing was sent`,
        'NOT_SENT',
        EXIT.network,
        `${err.hint ?? 'check the base URL'}; then run the same command again`,
      );
    }
    if (!resultUnknown(err)) throw explainCreateError(err, body, keyGiven);
    lastError = err;
    note(`warning: the create's outcome is unknown (${say(err)}); looking up reference ${ref}`);
  }

  const found = await lookUp(api, ref, note, say);
  if (found !== 'absent' && found !== 'unknown') return recoveredResult(note, found, body, token);

  note(
    found === 'absent'
      ? `reference ${ref} does not exist; sending the create again with the same idempotency key`
      : 'the lookup got no usable answer either; sending the create again with the same idempotency key (it cannot create twice)',
  );
  try {
    return { tx: await send(), recovered: false };
  } catch (err) {
    if (!resultUnknown(err)) throw explainCreateError(err, body, keyGiven);
    lastError = err;
    note(`warning: the second create's outcome is unknown too (${say(err)}); looking up reference ${ref} once more`);
  }

  const last = await lookUp(api, ref, note, say);
  if (last !== 'absent' && last !== 'unknown') return recoveredResult(note, last, body, token);
  const hint = 'the same --idempotency-key and --ref can never create a second transaction';
  if (last === 'absent') {
    // Known not to exist after the last attempt: say so, with the exit code of what failed
    // (1 for a 5xx after retries, 7 for no answer).
    throw new CliError(
      `transaction ${JSON.stringify(ref)} was not created (${say(lastError)}; reference ${ref} does not exist); retry safely with: ${retry}`,
      'NOT_CREATED',
      lastError instanceof CliError ? lastError.exitCode : EXIT.network,
      hint,
    );
  }
  throw new CliError(
    `no usable answer from the service, so whether transaction ${JSON.stringify(ref)} was created is unknown; retry safely with: ${retry}`,
    'OUTCOME_UNKNOWN',
    EXIT.network,
    `${hint}; \`offramp tx get --ref ${shellQuote(ref)}\` shows it if it exists`,
  );
}

async function lookUp(api: Api, ref: string, note: (line: string) => void, say: (err: unknown) => string): Promise<Transaction | 'absent' | 'unknown'> {
  try {
    return await transactionByReference(api, ref);
  } catch (err) {
    if (isNotFound(err)) return 'absent';
    if (resultUnknown(err)) {
      note(`warning: the lookup by reference got no usable answer (${say(err)})`);
      return 'unknown';
    }
    throw err;
  }
}

/**
 * A transaction found by reference is reported as this create's only when it matches the
 * request; a reference that already belonged to another transaction is a conflict, and
 * this command created nothing (references are unique).
 */
function recoveredResult(note: (line: string) => void, tx: Transaction, body: CreateTransactionRequest, token: string | undefined) {
  const problems = createDifferences(tx, body, token);
  if (problems.length > 0) {
    throw new CliError(
      `reference ${tx.merchant_reference ?? body.merchant_reference} already belongs to transaction ${tx.id}, which does not match this request (${problems.join('; ')}); nothing new was created`,
      'CONFLICT',
      EXIT.conflict,
      `choose another --ref, or see that one with: offramp tx get ${tx.id}`,
    );
  }
  note(`recovered: the create's answer was lost, but transaction ${tx.id} with reference ${tx.merchant_reference ?? body.merchant_reference} exists`);
  return { tx, recovered: true };
}

/** The service's refusals, with what to do about them. */
function explainCreateError(err: unknown, body: CreateTransactionRequest, keyGiven: boolean): unknown {
  if (!(err instanceof ApiError)) return err;
  const ref = body.merchant_reference;
  if (err.status === 409) {
    if (/idempotency/i.test(err.message)) {
      return err.withHint(keyGiven ? 'that --idempotency-key was used for a different request; drop it to use a fresh one' : 'retry without --idempotency-key');
    }
    return err.withHint(`references are unique per partner (case-insensitive): choose another --ref, or see the existing one with: offramp tx get --ref ${shellQuote(ref)}`);
  }
  if (err.status === 400) {
    if (body.quote_id !== undefined && /expired/i.test(err.message)) {
      return err.withHint(`quotes are valid 120 s: get a new one with \`offramp quote --token ${SANDBOX_PAIR.crypto_currency} --network ${body.network ?? SANDBOX_PAIR.network} --fiat-amount Y\` and create right away`);
    }
    if (body.quote_id !== undefined && /not found|unknown/i.test(err.message)) {
      return err.withHint('check the quote id: it comes from `offramp quote`, made with the same API key');
    }
    if (body.crypto_currency !== undefined && body.network !== undefined) return explainPair(err, body.crypto_currency, body.network);
  }
  return err;
}
