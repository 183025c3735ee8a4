// The command tree: every command's name, arguments, flags, help and examples, and the
// module that runs it (loaded only when it runs). Reading this file is reading
// `offramp --help`; the shell completions are generated from the same tree.
//
// Each command's options are typed from its flags (@commander-js/extra-typings infers them
// from the .option() calls): `action` checks at compile time that the flags, the named
// positional arguments and the adopted global options have exactly the keys the module's
// `run` takes, and types a module's `run` accepts, so a renamed flag is a compile error.
import { Argument, Option, type Command, type OptionValues } from '@commander-js/extra-typings';
import { SIMULATOR_EVENTS, TRANSACTION_STATUSES } from '../lib/vocabulary.js';
import type { Context } from '../lib/context.js';
import type { Program } from './program.js';

/** A command's module: its logic, given its options and the context. */
export type RunModule<O> = { run: (opts: O, ctx: Context) => Promise<number | void> };

/** Runs a command with a context built for it (src/cli.ts); `invoke` calls the module. */
export type Runtime = {
  run(cmd: Command<unknown[], OptionValues, OptionValues>, invoke: (ctx: Context) => Promise<number | void>): Promise<void>;
};

/** The position of `V` in the tuple `T`. */
type IndexOf<T extends readonly unknown[], V, Seen extends unknown[] = []> = T extends readonly [infer H, ...infer R]
  ? H extends V
    ? Seen['length']
    : IndexOf<R, V, [...Seen, H]>
  : never;

/** Positional arguments by the names given for them, typed as commander parses them. */
type Positional<N extends readonly string[], A extends unknown[]> = { [K in N[number]]: A[IndexOf<N, K>] };

/** What a module is handed: the command's options, its named arguments, the adopted globals. */
type Given<A extends unknown[], O, G, N extends readonly string[], K extends readonly (keyof G)[]> = O & Positional<N, A> & Pick<G, K[number]>;

/** Whether two types have the same keys (a renamed flag, or a renamed field, breaks it). */
type SameKeys<X, Y> = [Exclude<keyof X, keyof Y>, Exclude<keyof Y, keyof X>] extends [never, never] ? true : false;

/** One argument more (of type never) is asked for when the keys differ: a compile error at the call. */
type MustMatch<X, Y> = [X] extends [Y] ? (SameKeys<X, Y> extends true ? [] : [flags_and_options_differ: never]) : [flags_do_not_fit_options: never];

const OUTCOMES = ['completed', 'failed', 'expired', 'refunded'];

/** The top-level commands, in the order registered below. */
export const TOP_LEVEL_COMMANDS = [
  'quote',
  'tx',
  'revenue',
  'reconcile',
  'webhooks',
  'simulate',
  'smoke',
  'conform',
  'emulator',
  'demo',
  'profile',
  'config',
  'api',
  'openapi',
  'doctor',
  'completion',
  '__complete',
] as const;

/**
 * Registers the tree, or only the top-level command `only` with everything below it:
 * a run of one command parses against that branch, and registering the whole tree cost
 * a measurable part of every start (BENCHMARKS.md). Anything else (no command, an
 * unknown one) gets the whole tree, for the program's help and commander's suggestions.
 */
export function registerCommands(program: Program, runtime: Runtime, only?: string): void {
  const branch = TOP_LEVEL_COMMANDS.find((name) => name === only);
  const wanted = (name: (typeof TOP_LEVEL_COMMANDS)[number]) => branch === undefined || branch === name;
  /**
   * Wires a command to its module; positional arguments are passed by name, and so are the
   * options of the program or a parent command (`globals`) that the command reads as its own.
   */
  const action = <
    A extends unknown[],
    O extends OptionValues,
    G extends OptionValues,
    const N extends readonly string[] = [],
    const K extends readonly (keyof G & string)[] = [],
    P = Given<A, O, G, N, K>,
  >(
    cmd: Command<A, O, G>,
    load: () => Promise<RunModule<P>>,
    names: N = [] as unknown as N,
    globals: K = [] as unknown as K,
    ..._check: MustMatch<Given<A, O, G, N, K>, P>
  ) =>
    cmd.action(async (...args) => {
      const self = args[args.length - 1] as Command<A, O, G>;
      const all = self.optsWithGlobals() as Record<string, unknown>;
      const named = Object.fromEntries([...names.map((name, i) => [name, args[i]]), ...globals.map((name) => [name, all[name]])]);
      // Given<> by construction: the options, then each name with its position's value.
      const opts = { ...self.opts(), ...named } as unknown as P;
      await runtime.run(self as unknown as Command<unknown[], OptionValues, OptionValues>, async (ctx) => (await load()).run(opts, ctx));
    });
  const examples = <C extends { addHelpText(position: 'after', text: string): unknown }>(cmd: C, lines: string[]) =>
    cmd.addHelpText('after', `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}\n`);

  // ------------------------------------------------------------------ transactions
  program.commandsGroup('Transactions:');

  if (wanted('quote')) {
    examples(
      action(
        program
          .command('quote')
          .description('get a rate quote (valid 120 s) for a token amount or an NGN amount')
          .option('--token <symbol>', 'token, e.g. usdt')
          .option('--network <network>', 'deposit network, e.g. bep20')
          .option('--crypto-amount <amount>', 'amount in token units')
          .option('--fiat-amount <amount>', 'amount in NGN'),
        () => import('./quote.js'),
      ),
      ['offramp quote --token usdt --network bep20 --fiat-amount 150000', 'offramp quote --token usdt --network bep20 --crypto-amount 100 --json'],
    );
  }

  if (wanted('tx')) {
    const tx = program.command('tx').description('create, read, list, cancel and watch transactions');
    examples(
      action(
        tx
          .command('create')
          .description('create a transaction and get its deposit address')
          .option('--quote <id>', 'quote mode: a quote id from `offramp quote`')
          .option('--fiat-amount <amount>', 'direct mode: amount in NGN')
          .option('--token <symbol>', 'direct mode: token, e.g. usdt')
          .option('--network <network>', 'deposit network (both modes)')
          .option('--ref <merchant_reference>', 'your unique reference for this transaction (required)')
          .option('--merchant-id <id>', 'merchant identifier')
          .option('--terminal-id <id>', 'terminal identifier')
          .option('--seller-phone <phone>', 'seller phone number (metadata)')
          .option('--idempotency-key <key>', 'reuse a key to retry a create safely (default: a fresh UUID)'),
        () => import('./tx/create.js'),
      ),
      [
        'offramp tx create --fiat-amount 150000 --token usdt --network bep20 --ref order-1042',
        'offramp tx create --quote 6f1c…e2 --network bep20 --ref order-1043',
      ],
    );
    examples(
      action(
        tx
          .command('get')
          .description('show one transaction, by id or by your reference')
          .argument('[id]', 'transaction id')
          .option('--ref <merchant_reference>', 'look up by merchant reference instead'),
        () => import('./tx/get.js'),
        ['id'],
      ),
      ['offramp tx get 0b6f…91', 'offramp tx get --ref order-1042 --json'],
    );
    examples(
      action(
        tx
          .command('list')
          .description('list transactions, newest first')
          .option('--status <status>', 'only transactions in this status')
          .option('--from <date>', 'created at or after (YYYY-MM-DD or RFC 3339)')
          .option('--to <date>', 'created at or before (YYYY-MM-DD or RFC 3339)')
          .option('--limit <n>', 'page size, 1 to 100 (default 20)')
          .option('--cursor <cursor>', 'continue from a previous page')
          .option('--all', 'follow every page to the end (streams)'),
        () => import('./tx/list.js'),
      ),
      ['offramp tx list --limit 10', 'offramp tx list --status completed --from 2026-11-01 --all -o ndjson'],
    );
    examples(
      action(
        tx
          .command('cancel')
          .description('cancel a transaction that has not received a deposit')
          .argument('[id]', 'transaction id (asked for on a terminal when left out)')
          .option('--idempotency-key <key>', 'reuse a key to retry a cancel safely (default: a fresh UUID)'),
        () => import('./tx/cancel.js'),
        ['id'],
      ),
      ['offramp tx cancel 0b6f…91', 'offramp tx cancel 0b6f…91 --yes'],
    );
    examples(
      action(
        tx.command('history').description("show a transaction's status history").argument('[id]', 'transaction id (asked for on a terminal when left out)'),
        () => import('./tx/history.js'),
        ['id'],
      ),
      ['offramp tx history 0b6f…91'],
    );
    examples(
      action(
        tx
          .command('watch')
          .description('poll a transaction and show each status change until it ends')
          .argument('[id]', 'transaction id')
          .option('--ref <merchant_reference>', 'watch by merchant reference')
          .addOption(new Option('--until <status>', 'stop when this status is reached (default: any terminal status)').choices(TRANSACTION_STATUSES))
          .option('--interval <ms>', 'poll interval in ms', '2000'),
        () => import('./tx/watch.js'),
        ['id'],
      ).addHelpText('after', '\n--timeout MS (global) is, for watch, the overall deadline (exit 7 when it passes).'),
      ['offramp tx watch 0b6f…91', 'offramp tx watch --ref order-1042 --until completed --timeout 600000'],
    );
  }

  // ------------------------------------------------------------------ finance
  program.commandsGroup('Finance:');
  if (wanted('revenue')) {
    const revenue = program.command('revenue').description('the revenue ledger: export rows and totals');
    examples(
      action(
        revenue
          .command('export')
          .description('export ledger rows for any date range (windows over 90 days are split for you)')
          .option('--from <date>', 'start: YYYY-MM-DD (UTC day) or RFC 3339 date-time, inclusive')
          .option('--to <date>', 'end: YYYY-MM-DD (whole UTC day) or RFC 3339 date-time, inclusive')
          .option('--token <symbol>', 'only rows of this token')
          .option('--network <network>', 'only rows of this network')
          .option('--out <file>', 'write to this file (atomically) instead of stdout')
          .option('--summary', "check row count and summed share against the service's summary (exit 8 on mismatch)")
          .option('--concurrency <n>', 'pages fetched at once to start with (grows while the service answers cleanly, up to 16)', '4')
          .option('--raw-cells', "CSV: write cells exactly as received (no ' before a cell a spreadsheet would run as a formula)")
          .option('--excel', 'CSV: start with a UTF-8 byte order mark, for Excel')
          .option('--manifest <file>', 'also write a JSON manifest: window, filters, rows, totals per currency, SHA-256 of the output')
          .option('--resume', 'continue an interrupted export to --out from its checkpoint (and keep one if this run stops)'),
        () => import('./revenue/export.js'),
      ),
      [
        'offramp revenue export --from 2026-10-01 --to 2026-10-31 -o csv --out october.csv --summary',
        'offramp revenue export --from 2026-01-01 --to 2026-12-31 -o xlsx --out 2026.xlsx --manifest 2026.json --resume',
        'offramp revenue export --from 2026-01-01 --to 2026-06-30 -o ndjson',
      ],
    );
    examples(
      action(
        revenue
          .command('summary')
          .description('total partner share and transaction count for a date range')
          .option('--from <date>', 'start: YYYY-MM-DD or RFC 3339, inclusive')
          .option('--to <date>', 'end: YYYY-MM-DD or RFC 3339, inclusive')
          .option('--token <symbol>', 'only rows of this token (totals then come from the rows)')
          .option('--network <network>', 'only rows of this network (totals then come from the rows)'),
        () => import('./revenue/summary.js'),
      ),
      ['offramp revenue summary --from 2026-10-01 --to 2026-10-31'],
    );
  }
  if (wanted('reconcile')) {
    examples(
      action(
        program
          .command('reconcile')
          .description('cross-check transactions, ledger rows and webhook events for a date range')
          .option('--from <date>', 'start: YYYY-MM-DD or RFC 3339, inclusive')
          .option('--to <date>', 'end: YYYY-MM-DD or RFC 3339, inclusive'),
        () => import('./reconcile.js'),
      ),
      ['offramp reconcile --from 2026-10-01 --to 2026-10-31', 'offramp reconcile --from 2026-11-01 --to 2026-11-22 --json'],
    );
  }

  // ------------------------------------------------------------------ webhooks
  program.commandsGroup('Webhooks:');
  if (wanted('webhooks')) {
    const webhooks = program.command('webhooks').description('find, inspect, replay, receive and verify webhook events');
    examples(
      action(
        webhooks
          .command('list')
          .description('list webhook events with their delivery status')
          .option('--tx <id>', 'only events about this transaction')
          .option('--type <type>', 'only this event type')
          .option('--status <status>', "only this delivery status (the emulator's: pending, delivered, failed)")
          .option('--from <date>', 'created at or after (YYYY-MM-DD or RFC 3339)')
          .option('--to <date>', 'created at or before (YYYY-MM-DD or RFC 3339)')
          .option('--limit <n>', 'page size, 1 to 100 (default 20)')
          .option('--cursor <cursor>', 'continue from a previous page')
          .option('--all', 'follow every page to the end'),
        () => import('./webhooks/list.js'),
      ),
      ['offramp webhooks list --status failed --all', 'offramp webhooks list --tx 0b6f…91'],
    );
    examples(
      action(
        webhooks.command('get').description("show an event's delivery telemetry (the service keeps no payload)").argument('[event_id]', 'event id (asked for on a terminal when left out)'),
        () => import('./webhooks/get.js'),
        ['eventId'],
      ),
      ['offramp webhooks get 5d0e…7a'],
    );
    examples(
      action(
        webhooks
          .command('replay')
          .description('requeue events for redelivery (same event ids)')
          .argument('[event_ids...]', 'events to replay')
          .option('--failed', 'replay every event whose delivery failed (narrow with --tx/--from/--to)')
          .option('--tx <id>', 'with --failed: only events about this transaction')
          .option('--from <date>', 'with --failed: created at or after')
          .option('--to <date>', 'with --failed: created at or before')
          .option('--failed-status <value>', "the delivery_status --failed means (default: the profile's, else failed)")
          .option('--concurrency <n>', 'replays sent at once', '4'),
        () => import('./webhooks/replay.js'),
        ['eventIds'],
      ),
      ['offramp webhooks replay 5d0e…7a 91aa…03', 'offramp webhooks replay --failed --from 2026-11-01'],
    );
    examples(
      action(
        webhooks
          .command('listen')
          .description('receive webhooks locally: verify, deduplicate, store, show')
          .option('--port <port>', 'port on 127.0.0.1', '8787')
          .option('--secret <secret>', 'webhook secret (prefer OFFRAMP_WEBHOOK_SECRET or the profile)')
          .option('--store <file>', 'append each new event to this NDJSON file (yours alone: 0600)', 'webhooks.ndjson')
          .option('--forward-to <url>', "relay verified events to your app's endpoint, retrying until it takes each")
          .option('--forward-ca <file>', 'with an https --forward-to: trust this PEM certificate (a self-signed local app)')
          .option('--forward-insecure', "with an https --forward-to: do not check the app's certificate")
          .option('--events <types>', 'show and forward only these event types, comma-separated (family.* allowed); all are stored')
          .option('--strict', 'with --forward-to: exit 8 when the app is still owed events at exit')
          .option('--scheme <name>', "accept only this signature scheme (default: the profile's, else any of the catalogue)")
          .option('--tolerance <seconds>', 'largest clock difference accepted for timestamped signatures', '300'),
        () => import('./webhooks/listen.js'),
      ),
      [
        'offramp webhooks listen --port 8787',
        'offramp webhooks listen --forward-to http://127.0.0.1:3000/webhooks --events transaction.completed,payout.settled',
        'offramp webhooks listen --forward-to https://localhost:3443/hooks --forward-ca ./dev-cert.pem --strict',
      ],
    );
    examples(
      action(
        webhooks
          .command('verify')
          .description('check the signature of one delivery offline (body on stdin by default)')
          .option('--secret <secret>', 'webhook secret (or OFFRAMP_WEBHOOK_SECRET / profile)')
          .option('--signature <sig>', 'the X-SVC-Webhook-Signature header value')
          .option('--file <body>', 'read the raw body from this file')
          .option('--scheme <name>', "accept only this signature scheme (default: the profile's, else any of the catalogue)")
          .option('--tolerance <seconds>', 'largest clock difference accepted for timestamped signatures', '300')
          .option('--detect', 'print every scheme (and which secret) the delivery verifies under')
          .option('--from-store <file>', "take body and signature from a `webhooks listen` store (the last event, or --event)")
          .option('--event <id>', 'with --from-store: the event to check'),
        () => import('./webhooks/verify.js'),
      ),
      ['offramp webhooks verify --signature 3f9a… --file body.json', 'cat body.json | offramp webhooks verify --signature 3f9a…'],
    );
    examples(
      action(
        webhooks
          .command('resend')
          .description("re-sign stored events and deliver them to your app, duplicated, shuffled and late on request")
          .option('--from-store <file>', 'a `webhooks listen` store: the events to send')
          .option('--to <url>', "your app's webhook endpoint")
          .option('--secret <secret>', 'sign with this secret (or OFFRAMP_WEBHOOK_SECRET / profile)')
          .option('--scheme <name>', "sign under this scheme of the catalogue (default: the profile's, else hmac-sha256-hex)")
          .option('--events <types>', 'only these event types, comma-separated (family.* allowed)')
          .option('--duplicate <n>', 'send each event n more times (same id, same body)', '0')
          .option('--shuffle', 'send in random order (copies included)')
          .option('--delay <min-maxms>', 'wait a random time in this range before each delivery, like 100-2000ms'),
        () => import('./webhooks/resend.js'),
      ),
      [
        'offramp webhooks resend --from-store webhooks.ndjson --to http://127.0.0.1:3000/webhooks',
        'offramp webhooks resend --from-store webhooks.ndjson --to http://127.0.0.1:3000/webhooks --duplicate 2 --shuffle --delay 50-500ms',
      ],
    );
  }

  // ------------------------------------------------------------------ sandbox
  program.commandsGroup('Sandbox:');
  if (wanted('simulate')) {
    const simulate = program
      .command('simulate')
      .description('drive a staging transaction through its lifecycle (staging only)')
      .argument('[tx_id]', 'transaction id')
      .argument('[event]', `one of: ${SIMULATOR_EVENTS.join(', ')}`)
      .option('--deposit-id <id>', 'stable simulated deposit id')
      .option('--hash <hash>', 'simulated blockchain hash');
    examples(action(simulate, () => import('./simulate/event.js'), ['txId', 'event']), [
      'offramp simulate 0b6f…91 deposit.detected',
      'offramp simulate walk --outcome completed --settle',
    ]);
    examples(
      action(
        simulate
          .command('walk')
          .description('walk a transaction (a new one unless given) to an outcome, step by step')
          .argument('[tx_id]', 'existing transaction id')
          .addOption(new Option('--outcome <outcome>', 'where to end').choices(OUTCOMES).default('completed'))
          .option('--settle', 'also send payout.settled after completion'),
        () => import('./simulate/walk.js'),
        ['txId'],
      ),
      ['offramp simulate walk', 'offramp simulate walk 0b6f…91 --outcome refunded'],
    );
  }
  if (wanted('smoke')) {
    examples(
      action(
        program
          .command('smoke')
          .description('CI check: one full walk plus invariants (exit 8 on a failure)')
          .addOption(new Option('--outcome <outcome>', 'outcome to walk to').choices(OUTCOMES).default('completed'))
          .option('--junit <file>', 'write a JUnit XML report')
          .addOption(
            new Option('--report <format>', 'also report for a CI system: github (::error annotations, $GITHUB_STEP_SUMMARY table)').choices(['github']),
          ),
        () => import('./smoke.js'),
      ),
      ['offramp smoke', 'offramp smoke --junit smoke.xml --json', 'offramp smoke --junit smoke.xml --report github'],
    );
  }
  if (wanted('conform')) {
    examples(
      action(
        program
          .command('conform')
          .description("find out what the service chose where the spec says \"not shown\", beside the emulator's choice")
          .option('--store <file>', "a `webhooks listen` store holding deliveries of this service: its signature scheme is checked too")
          .option('--save', 'save what the CLI needs to know (filter names, failed status, signature scheme) into the profile')
          .option('--overlay <file>', 'also write what the service chose as an OpenAPI Overlay over `offramp openapi` (YAML; JSON for .json)'),
        () => import('./conform.js'),
      ),
      [
        'offramp conform --profile staging',
        'offramp conform --profile staging --save',
        'offramp conform --profile live --json',
        'offramp conform --profile staging --overlay staging.overlay.yaml',
      ],
    );
  }
  if (wanted('emulator')) {
    const emulator = program
      .command('emulator')
      .description('run the local emulator of the partner API (or drive a running one: clock, reset, fault, state, wait)')
      .option('--port <port>', 'port', '4010')
      .option('--host <host>', 'address to bind', '127.0.0.1')
      .option('--webhook-url <url>', 'deliver webhooks here')
      .option('--webhook-secret <secret>', 'sign webhooks with this secret (or OFFRAMP_WEBHOOK_SECRET)')
      .option('--latency <ms>', 'delay every answer')
      .option('--fault-rate <r>', 'share of requests that fail (500, 503, dropped after commit)')
      .option('--seed <n>', 'seed for faults, webhook chaos and generated data')
      .option('--seed-revenue <n>', 'fill the ledger with N rows over the last 180 days')
      .addOption(new Option('--mode <mode>', 'behave as staging or production').choices(['staging', 'production']).default('staging'))
      .option('--rate <ngn>', 'NGN per token')
      .option('--rate-limit <n>', 'requests per second per key')
      .option('--signature-scheme <name>', 'sign deliveries with this scheme of the catalogue (default hmac-sha256-hex)')
      .option('--state <file>', 'load this state file at start if it exists, and keep it current')
      .option('--ready-file <path>', 'write the base URL to this file once the emulator accepts connections')
      .option('--webhook-chaos <spec>', 'deliver webhooks duplicated, reordered, late: duplicate=R,reorder=R,delay=MIN-MAXms')
      .option('--admin-token <token>', 'require this bearer token on the control plane (or OFFRAMP_EMULATOR_ADMIN_TOKEN)')
      .addHelpText(
        'after',
        '\n--api-key K (repeatable) gives each key its own partner; without it the default key is used (see README).\n' +
          'The subcommands drive the emulator behind the current profile or --base-url through its control plane\n' +
          '(loopback only, or with the admin token from OFFRAMP_EMULATOR_ADMIN_TOKEN).',
      );
    examples(
      action(
        emulator,
        () => import('./emulator.js'),
        [],
        // --api-key is a global option; every one given is a partner of the emulator.
        ['apiKey'],
      ),
      [
        'offramp emulator',
        'offramp emulator --port 4010 --webhook-url http://127.0.0.1:8787/ --webhook-secret whsec_dev --fault-rate 0.2',
        'offramp emulator --port 0 --state emulator.state --ready-file emulator.url &',
      ],
    );
    // The admin token is an option of `emulator` itself, which reads it wherever it stands
    // on the line; so are --latency and --timeout (a global): the subcommands take them from there.
    const clock = emulator.command('clock').description("move the emulator's business time");
    examples(
      action(
        clock
          .command('advance')
          .description('move business time forward; what became due happens (quotes and deposits expire, with their webhooks)')
          .argument('<duration>', 'how far: 31m, 1h30m, 90s, 2d'),
        () => import('./emulator/clock.js'),
        ['duration'],
        ['adminToken'],
      ),
      ['offramp emulator clock advance 31m', 'offramp emulator clock advance 1h --json'],
    );
    examples(
      action(
        emulator.command('reset').description("forget everything (or one partner's data): as freshly started").option('--partner <key>', 'reset only the partner with this API key'),
        () => import('./emulator/reset.js'),
        [],
        ['adminToken'],
      ),
      ['offramp emulator reset', 'offramp emulator reset --partner "$OFFRAMP_API_KEY"'],
    );
    const fault = emulator.command('fault').description('targeted faults on API routes or webhook deliveries');
    examples(
      action(
        fault
          .command('add')
          .description('add a fault rule')
          .option('--route <route>', "'METHOD PATH', PATH below the base path, * for one segment: 'GET /transactions/*'")
          .option('--webhook', 'a fault on webhook deliveries instead of an API route')
          .option('--event-type <type>', 'with --webhook: only deliveries of this event type')
          .option('--next <n>', 'only the next N matching requests or deliveries (default: until cleared)')
          .option('--status <code>', 'answer this status (routes: 400-599, before the operation; webhooks: 300-599)')
          .option('--drop-after-commit', 'run the operation, then close the connection without an answer')
          .option('--latency <ms>', 'delay the answer by MS'),
        () => import('./emulator/fault-add.js'),
        [],
        ['adminToken', 'latency'],
      ),
      [
        "offramp emulator fault add --route 'GET /transactions/*' --next 2 --status 503",
        "offramp emulator fault add --route 'POST /transactions' --next 1 --drop-after-commit",
        'offramp emulator fault add --webhook --event-type transaction.created --next 3 --status 500',
      ],
    );
    examples(action(fault.command('clear').description('remove every fault rule'), () => import('./emulator/fault-clear.js'), [], ['adminToken']), [
      'offramp emulator fault clear',
    ]);
    const state = emulator.command('state').description("the emulator's whole state, out and in (the --state file format)");
    examples(
      action(
        state.command('export').description('write the whole state to FILE (- for stdout)').argument('<file>', 'where to write'),
        () => import('./emulator/state-export.js'),
        ['file'],
        ['adminToken'],
      ),
      ['offramp emulator state export before.state'],
    );
    examples(
      action(
        state.command('import').description('replace the whole state with FILE (- for stdin)').argument('<file>', 'a state export or --state file'),
        () => import('./emulator/state-import.js'),
        ['file'],
        ['adminToken'],
      ),
      ['offramp emulator state import before.state'],
    );
    examples(
      action(
        emulator.command('wait').description('exit 0 as soon as the emulator answers (--timeout MS bounds the wait); prints its base URL'),
        () => import('./emulator/wait.js'),
        [],
        ['adminToken'],
      ),
      ['offramp emulator wait --timeout 10000', 'OFFRAMP_BASE_URL=$(offramp emulator wait --base-url http://127.0.0.1:4010/api/v1/partner)'],
    );
    // With both an action and subcommands, a mistyped subcommand reaches the server's action
    // as an argument: it is taken (undescribed, so help lists none) to say what it is.
    emulator
      .argument('[subcommand...]')
      .usage('[options]\n       offramp emulator clock|reset|fault|state|wait ...')
      .hook('preAction', (_self, acting) => {
        if (acting === emulator && emulator.args.length > 0) {
          emulator.error(`error: unknown command '${emulator.args[0]}' for 'offramp emulator' (its commands: clock, reset, fault, state, wait)`);
        }
      });
  }
  if (wanted('demo')) {
    examples(action(program.command('demo').description('the one-command tour: emulator, listener, one transaction end to end'), () => import('./demo.js')), [
      'offramp demo',
    ]);
  }

  // ------------------------------------------------------------------ setup
  program.commandsGroup('Setup:');
  if (wanted('profile')) {
    const profile = program.command('profile').description('stored profiles, one per environment');
    examples(
      action(
        profile
          .command('add')
          .description('add a profile, or replace one (the key comes from a hidden prompt or stdin)')
          .argument('<name>', 'profile name')
          .addOption(new Option('--env <env>', 'environment').choices(['staging', 'production', 'local']))
          .option('--base-url <url>', 'base address including /api/v1/partner (local: the emulator)')
          .option('--api-key-stdin', 'read the API key from stdin')
          .option('--webhook-secret-stdin', 'read the webhook secret from stdin (after the key, on its own line)')
          .option('--force', 'replace a profile of that name without asking'),
        () => import('./profile/add.js'),
        ['name'],
      ),
      ['offramp profile add dev --env local', 'echo "$KEY" | offramp profile add staging --env staging --base-url https://… --api-key-stdin'],
    );
    examples(action(profile.command('list').description('list profiles (keys masked)'), () => import('./profile/list.js')), ['offramp profile list', 'offramp profile list --json']);
    examples(
      action(profile.command('show').description('show a profile (keys masked)').argument('[name]', 'profile (default: current)'), () => import('./profile/show.js'), ['name']),
      ['offramp profile show', 'offramp profile show staging --json'],
    );
    examples(action(profile.command('use').description('make a profile the current one').argument('<name>', 'profile'), () => import('./profile/use.js'), ['name']), [
      'offramp profile use staging',
    ]);
    examples(action(profile.command('remove').description('delete a profile').argument('<name>', 'profile'), () => import('./profile/remove.js'), ['name']), [
      'offramp profile remove old-staging',
    ]);
  }
  if (wanted('config')) {
    const config = program.command('config').description('the config file');
    examples(action(config.command('path').description('print where the config file lives'), () => import('./config/path.js')), ['offramp config path', 'chmod 600 "$(offramp config path)"']);
  }

  if (wanted('api')) {
    examples(
      action(
        program
          .command('api')
          .description('send an authenticated request to any endpoint and print the JSON body')
          .argument('<method>', 'GET, POST, ...')
          .argument('<path>', 'path below the base URL, e.g. /transactions')
          .option('--data <json>', 'JSON request body')
          .option('--idempotency-key <key>', 'Idempotency-Key header')
          .option('--paginate', 'follow next_cursor and print every item'),
        () => import('./api.js'),
        ['method', 'path'],
      ),
      ['offramp api GET /transactions --paginate', 'offramp api POST /quotes --data \'{"crypto_currency":"usdt","network":"bep20","fiat_amount":"5000"}\''],
    );
  }
  if (wanted('openapi')) {
    examples(action(program.command('openapi').description('print the OpenAPI 3.1 document of the partner API as offramp reads it'), () => import('./openapi.js')), [
      'offramp openapi > offramp.yaml',
      'offramp openapi --json',
    ]);
  }
  if (wanted('doctor')) {
    examples(action(program.command('doctor').description('check Node, config, profile, reachability, key and clock'), () => import('./doctor.js')), [
      'offramp doctor',
      'offramp doctor --profile staging --json',
    ]);
  }
  if (wanted('completion')) {
    examples(
      action(
        program
          .command('completion')
          .description('print a shell completion script')
          .addArgument(new Argument('<shell>', 'shell').choices(['bash', 'zsh', 'fish'])),
        () => import('./completion.js'),
        ['shell'],
      ),
      ['offramp completion bash > /etc/bash_completion.d/offramp', 'offramp completion fish > ~/.config/fish/completions/offramp.fish'],
    );
  }
  if (wanted('__complete')) {
    action(
      program.command('__complete', { hidden: true }).description('words for shell completion').argument('<what>', 'profiles'),
      () => import('./complete.js'),
      ['what'],
    );
  }
}
