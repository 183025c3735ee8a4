// `revenue report`: one self-contained HTML page (no script, nothing to fetch) whose
// figures are the ledger's exact sums, whose SHA-256 is the export's, and which a real
// browser renders: Debian's chromium, headless, prints the page's DOM (the figures read
// from it equal `revenue summary --by month --json`) and a screenshot that is not blank.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browser, CHROMIUM } from '../helpers/chromium.js';
import { tempHome } from '../helpers/cli.js';
import { emulatorFor } from '../helpers/emulator.js';
import { runMain } from '../helpers/main.js';
import { freshDir, ledgerRow } from './export-helpers.js';
import { ledgerServer, randomLedger, type Row } from './ledger-server.js';

const KEY = 'sk_test_report_0001';
const FROM = '2026-01-01';
const TO = '2026-06-30';


let server: Awaited<ReturnType<typeof ledgerServer>>;
let ledger: Row[];
beforeAll(async () => {
  // A hostile token name too: text from the service is escaped, never markup.
  ledger = [...randomLedger(29, `${FROM}T00:00:00Z`, `${TO}T23:59:59Z`, 300), ledgerRow(9999, '2026-06-30T23:00:00.000Z', { crypto_currency: '<b>x</b>' })];
  server = await ledgerServer(ledger, 20_000);
});
afterAll(() => server.close());

const cli = (args: string[]) => runMain(args, { env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: server.baseUrl } });

async function report(dir: string, extra: string[] = []): Promise<string> {
  const out = join(dir, 'report.html');
  const r = await cli(['revenue', 'report', '--from', FROM, '--to', TO, '--out', out, ...extra]);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toMatch(/^Wrote .*report\.html: [\d,]+ rows summarised$/m);
  return out;
}

describe('revenue report', { timeout: 120_000 }, () => {
  it('one self-contained page: no script, nothing to fetch, text escaped; its SHA-256 is the export’s', async () => {
    const dir = freshDir('offramp-report-');
    const html = readFileSync(await report(dir), 'utf8');
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(/i);
    // The only addresses are the SVG namespaces, which are names, not fetched, and the service's, as text.
    expect(html.match(/https?:\/\/[^"'\s)<]+/g)?.filter((u) => !/^http:\/\/www\.w3\.org\//.test(u)) ?? []).toEqual([server.baseUrl]);
    expect(html).toContain(`<dd id="service">${server.baseUrl}</dd>`);
    expect(html).toContain('@media print');
    expect(html).not.toContain('<b>x</b>');
    expect(html).toContain('&lt;b&gt;x&lt;/b&gt;');
    expect(html).toMatch(/<svg[^>]*>/);
    // The export the page names, run as it says, hashes the same bytes.
    const command = /of the CSV that <code>offramp revenue export (.*?) -o csv<\/code>/.exec(html)![1]!.split(' ');
    const exported = await cli(['revenue', 'export', ...command, '-o', 'csv', '--out', join(dir, 'rows.csv'), '--manifest', join(dir, 'm.json')]);
    expect(exported.code, exported.stderr).toBe(0);
    const manifest = JSON.parse(readFileSync(join(dir, 'm.json'), 'utf8'));
    expect(/<code id="sha256">([0-9a-f]{64})<\/code>/.exec(html)![1]).toBe(manifest.output.sha256);
    expect(html).toContain(`id="cli">offramp-cli ${manifest.cli.version}<`);
  });

  it('a window without a row: a page of zeros, every month listed, the empty CSV’s SHA-256', async () => {
    const dir = freshDir('offramp-report-empty-');
    const out = join(dir, 'empty.html');
    const r = await cli(['revenue', 'report', '--from', '2025-01-01', '--to', '2025-02-28', '--token', 'usdt', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('0 rows summarised');
    const html = readFileSync(out, 'utf8');
    expect([...html.matchAll(/<tr data-key="(2025-\d\d)">/g)].map((m) => m[1])).toEqual(['2025-01', '2025-02']);
    expect(html).toContain('id="filters">token usdt<');
    // The header line alone, as `revenue export -o csv` writes an empty window.
    const header = 'transaction_id,merchant_id,merchant_reference,terminal_id,crypto_currency,network,crypto_amount,amount,platform_fee,share,ts\r\n';
    expect(/<code id="sha256">([0-9a-f]{64})<\/code>/.exec(html)![1]).toBe(createHash('sha256').update(header).digest('hex'));
  });

  it('run with --profile and --base-url, the export it names takes them too, so it reads the same service', async () => {
    const dir = freshDir('offramp-report-profile-');
    const home = tempHome();
    const add = await runMain(['profile', 'add', 'books', '--env', 'staging', '--base-url', 'http://127.0.0.1:9/api/v1/partner', '--api-key-stdin'], { env: home.env, stdin: `${KEY}\n` });
    expect(add.code, add.stderr).toBe(0);
    const out = join(dir, 'report.html');
    const r = await runMain(['--profile', 'books', '--base-url', server.baseUrl, 'revenue', 'report', '--from', FROM, '--to', TO, '--token', 'usdt', '--out', out], { env: home.env });
    expect(r.code, r.stderr).toBe(0);
    const html = readFileSync(out, 'utf8');
    const command = /of the CSV that <code>(.*?)<\/code>/.exec(html)![1]!;
    expect(command).toBe(`offramp --profile books --base-url ${server.baseUrl} revenue export --from ${FROM}T00:00:00.000Z --to ${TO}T23:59:59.999Z --token usdt -o csv`);
    // Run as printed (no word of it needs quoting), it hashes the same rows.
    const exported = await runMain([...command.split(' ').slice(1), '--out', join(dir, 'rows.csv'), '--manifest', join(dir, 'm.json')], { env: home.env });
    expect(exported.code, exported.stderr).toBe(0);
    expect(/<code id="sha256">([0-9a-f]{64})<\/code>/.exec(html)![1]).toBe(JSON.parse(readFileSync(join(dir, 'm.json'), 'utf8')).output.sha256);
  });

  it.each([
    [['--out', 'report.pdf'], /--out \S*report\.pdf: a report is an HTML page; give a name ending in \.html/],
    [[], /--out: give the file to write/],
    [['--out', 'r.html', '--tz', 'Nowhere/Land'], /--tz: "Nowhere\/Land" is not a time zone/],
    [['--out', 'missing/r.html'], /--out \S*missing\/r\.html: cannot write there \(ENOENT\)/],
  ])('%j: usage error (exit 2), nothing fetched, nothing written', async (flags, message) => {
    const dir = freshDir('offramp-report-bad-');
    const before = server.requests.length;
    const r = await runMain(['revenue', 'report', '--from', FROM, '--to', TO, ...flags.map((f) => (f.endsWith('.html') || f.endsWith('.pdf') ? join(dir, f) : f))], {
      env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: server.baseUrl },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(server.requests.length).toBe(before);
    expect(readdirSync(dir)).toEqual([]);
  });

  if (!CHROMIUM) it.skip('in a browser: needs Debian’s chromium (apt-get install -y chromium)', () => undefined);

  it.skipIf(!CHROMIUM)('headless chromium renders it: the figures on the page equal `revenue summary --by month --json`; the screenshot is not blank', async () => {
    const dir = freshDir('offramp-report-browser-');
    const page = await report(dir, ['--tz', 'Africa/Lagos']);
    const summary = await cli(['revenue', 'summary', '--from', FROM, '--to', TO, '--tz', 'Africa/Lagos', '--by', 'month', '--json']);
    expect(summary.code, summary.stderr).toBe(0);
    type Line = { month: string; transactions: number; amount: string; platform_fee: string; share: string };
    const want = JSON.parse(summary.stdout) as { rows: Line[]; total: Omit<Line, "month"> };

    const dom = (await browser(dir, ['--dump-dom', `file://${page}`])).stdout;
    const months = rowsOf(dom, 'months');
    expect(months.map((r) => r.key)).toEqual([...want.rows.map((r) => r.month), 'total']);
    for (const [i, w] of [...want.rows, { ...want.total, month: 'total' } as Line].entries()) {
      const got = months[i]!.fields;
      expect({ transactions: Number(got.transactions), amount: got.amount, platform_fee: got.platform_fee, share: got.share }, w.month as string).toEqual({
        transactions: w.transactions,
        amount: w.amount,
        platform_fee: w.platform_fee,
        share: w.share,
      });
    }
    // The chart is there, as drawn SVG: a bar per month with a share above zero.
    expect(dom).toMatch(/<figure id="chart"[^>]*>\s*<svg/);

    const shot = join(dir, 'report.png');
    await browser(dir, [`--screenshot=${shot}`, '--window-size=1000,1400', `file://${page}`]);
    expect(existsSync(shot) && statSync(shot).size > 0).toBe(true);
    const colours = distinctColours(readFileSync(shot));
    // A blank page is one colour; the page has text, rules and the chart's blue.
    expect(colours.size).toBeGreaterThan(20);
    expect([...colours].some((c) => c === '2f6fb2')).toBe(true);
  });
});

describe('revenue report names its source, its units and the periods the window cuts', { timeout: 120_000 }, () => {
  const text = (html: string, id: string) => new RegExp(`id="${id}">([^<]*)<`).exec(html)?.[1];

  it('a service with no profile: its URL without credentials, no profile, environment not known, said so on top', async () => {
    const dir = freshDir('offramp-report-source-');
    const out = join(dir, 'r.html');
    const withUser = server.baseUrl.replace('http://', 'http://auditor:hunter2@');
    const r = await runMain(['revenue', 'report', '--from', '2026-01-05', '--to', '2026-02-10', '--out', out], { env: { OFFRAMP_API_KEY: KEY, OFFRAMP_BASE_URL: withUser } });
    expect(r.code, r.stderr).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(text(html, 'service')).toBe(server.baseUrl);
    expect(html).not.toContain('hunter2');
    expect(text(html, 'profile')).toBe('none (the base URL and key came from flags or the environment)');
    expect(text(html, 'environment')).toBe('unknown');
    expect(text(html, 'source-mark')).toBe('Environment not known (no profile names this service): check the service before relying on these figures');
    // Five weeks and a bit: charted by ISO week, in NGN; 5 Jan 2026 is a Monday, 10 Feb a Tuesday.
    expect(html).toContain('<h2>Partner share by ISO week</h2>');
    expect(html).toContain('Partner share in NGN by ISO week (UTC). * partial ISO week (2026-W07): the window holds only part of it.');
    expect(html).toMatch(/<svg[\s\S]*>NGN<[\s\S]*>2026-W02<[\s\S]*>2026-W07 \*</);
    expect(html).toContain('<tr data-key="2026-01"><td>2026-01 (partial)</td>');
    expect(html).toContain('<tr data-key="2026-02"><td>2026-02 (partial)</td>');
    expect(html).toContain('<th>Token amount (in the token)</th>');
  });

  it('a staging profile: named, with its environment, marked as not production', async () => {
    const dir = freshDir('offramp-report-staging-');
    const home = tempHome();
    const add = await runMain(['profile', 'add', 'books', '--env', 'staging', '--base-url', server.baseUrl, '--api-key-stdin'], { env: home.env, stdin: `${KEY}\n` });
    expect(add.code, add.stderr).toBe(0);
    const out = join(dir, 'r.html');
    const seen = server.requests.length;
    // An emulator's admin token in the environment never goes to a staging service, even one on this machine.
    const r = await runMain(['--profile', 'books', 'revenue', 'report', '--from', FROM, '--to', TO, '--out', out], { env: { ...home.env, OFFRAMP_EMULATOR_ADMIN_TOKEN: 'emulator-token-123' } });
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.slice(seen).filter((req) => req.headers.authorization !== undefined)).toEqual([]);
    const html = readFileSync(out, 'utf8');
    expect([text(html, 'profile'), text(html, 'environment'), text(html, 'source-mark')]).toEqual(['books', 'staging', 'STAGING: figures of a staging service, not of production']);
    // Six whole months: by month, none partial.
    expect(html).toContain('<h2>Partner share by month</h2>');
    expect(html).not.toContain('partial');
  });

  it('the emulator: found by its health check, marked EMULATOR on the page as chromium shows it', async () => {
    const emu = await emulatorFor({ seedRevenue: 300, seed: 5, rateLimit: 0 });
    try {
      const dir = freshDir('offramp-report-emulator-');
      const out = join(dir, 'r.html');
      const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
      const r = await runMain(['revenue', 'report', '--from', day(-40), '--to', day(-1), '--out', out], { env: emu.env });
      expect(r.code, r.stderr).toBe(0);
      const html = readFileSync(out, 'utf8');
      const mark = /^EMULATOR: synthetic figures from the offramp emulator \S+, not a ledger of the service$/;
      expect(text(html, 'source-mark')).toMatch(mark);
      expect(text(html, 'environment')).toMatch(/^emulator \(offramp \S+, answered its health check\)$/);
      expect(text(html, 'service')).toBe(emu.emulator.url);
      if (!CHROMIUM) return;
      const dom = (await browser(dir, ['--dump-dom', `file://${out}`])).stdout;
      expect(text(dom, 'source-mark')).toMatch(mark);
    } finally {
      await emu.close();
    }
  });
});

/** The rows of table `id` in the rendered DOM: each row's key and its figures as shown, thousands separators removed. */
function rowsOf(dom: string, id: string): { key: string; fields: Record<string, string> }[] {
  const table = new RegExp(`<table id="${id}">([\\s\\S]*?)</table>`).exec(dom)![1]!;
  return [...table.matchAll(/<tr data-key="([^"]*)">([\s\S]*?)<\/tr>/g)].map(([, key, cells]) => ({
    key: key!,
    fields: Object.fromEntries([...cells!.matchAll(/<td data-field="([^"]+)">([^<]*)<\/td>/g)].map(([, field, text]) => [field!, text!.replaceAll(',', '')])),
  }));
}

/** The distinct colours (hex RGB) of an 8-bit RGB or RGBA, non-interlaced PNG, as chromium writes its screenshots. */
function distinctColours(png: Buffer): Set<string> {
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const [depth, type, , , interlace] = [png[24], png[25], png[26], png[27], png[28]];
  expect({ depth, interlace, type: [2, 6].includes(type!) }).toEqual({ depth: 8, interlace: 0, type: true });
  const channels = type === 6 ? 4 : 3;
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + length));
    at += length + 12;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    for (let x = 0; x < stride; x++) {
      const v = raw[y * (stride + 1) + 1 + x]!;
      const a = x >= channels ? pixels[y * stride + x - channels]! : 0;
      const b = y > 0 ? pixels[(y - 1) * stride + x]! : 0;
      const c = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels]! : 0;
      const p = a + b - c;
      const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      const add = [0, a, b, (a + b) >> 1, paeth][filter]!;
      pixels[y * stride + x] = (v + add) & 0xff;
    }
  }
  const colours = new Set<string>();
  for (let i = 0; i < pixels.length; i += channels) colours.add(pixels.subarray(i, i + 3).toString('hex'));
  return colours;
}
