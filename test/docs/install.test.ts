// docs/install.md's CI snippets are what partners paste: each must be YAML that parses, and
// run the image of this version with the emulator's port, the admin token handed to the
// service, and the job pointed at the service's address.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const doc = readFileSync(new URL('../../docs/install.md', import.meta.url), 'utf8');
const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const blocks = [...doc.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => parse(m[1]!) as Record<string, unknown>);
const image = new RegExp(`(^|/)offramp-emulator:${version.replace(/\./g, '\\.')}$`);

type Job = { services: unknown; env?: Record<string, string>; variables?: Record<string, string>; steps?: { run?: string }[]; script?: string[] };

describe('docs/install.md: the emulator image as a CI service', () => {
  it('has the GitHub Actions workflow and the GitLab CI job, both valid YAML', () => {
    expect(blocks).toHaveLength(2);
  });

  it('GitHub Actions: the service runs the image with port 4010 published and the admin token, and the job waits for it', () => {
    const workflow = blocks.find((b) => 'jobs' in b) as { jobs: Record<string, Job> };
    const job = Object.values(workflow.jobs)[0]!;
    const service = Object.values(job.services as Record<string, { image: string; ports: string[]; env: Record<string, string> }>)[0]!;
    expect(service.image).toMatch(image);
    expect(service.ports).toContain('4010:4010');
    expect(Object.keys(service.env)).toContain('OFFRAMP_EMULATOR_ADMIN_TOKEN');
    expect(job.env).toMatchObject({ OFFRAMP_BASE_URL: 'http://127.0.0.1:4010/api/v1/partner', OFFRAMP_EMULATOR_ADMIN_TOKEN: service.env.OFFRAMP_EMULATOR_ADMIN_TOKEN });
    const runs = job.steps!.map((s) => s.run ?? '').join('\n');
    expect(runs).toMatch(/sha256sum -c offramp-linux-x64\.sha256/);
    expect(runs.indexOf('offramp emulator wait')).toBeLessThan(runs.indexOf('offramp smoke'));
    // The emulator reaches the runner at the service network's gateway: smoke receives there.
    expect(runs).toContain('docker network inspect "${{ job.services.offramp-emulator.network }}"');
    expect(runs).toMatch(/offramp smoke .*--receive-at "http:\/\/\$GATEWAY:8788\/"/);
  });

  it('GitLab CI: the service runs the image under an alias the base URL names, port 4010, with the admin token', () => {
    const job = Object.values(blocks.find((b) => !('jobs' in b))!)[0] as Job;
    const service = (job.services as { name: string; alias: string }[])[0]!;
    expect(service.name).toMatch(image);
    expect(job.variables!.OFFRAMP_BASE_URL).toBe(`http://${service.alias}:4010/api/v1/partner`);
    // Plain http to the alias is refused unless the job names it (docs/configuration.md).
    expect(job.variables!.OFFRAMP_ALLOW_HTTP_HOSTS).toBe(service.alias);
    expect(Object.keys(job.variables!)).toContain('OFFRAMP_EMULATOR_ADMIN_TOKEN');
    const smoke = job.script!.indexOf('offramp smoke --receive-at "http://$(hostname -i):8788/"');
    expect(job.script!.indexOf('offramp emulator wait --timeout 30000')).toBeLessThan(smoke);
    expect(smoke).toBeGreaterThan(0);
  });
});
