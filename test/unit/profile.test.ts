import { describe, expect, it } from 'vitest';
import { maskSecret, needsConfig, resolveSettings, type ConfigData } from '../../src/lib/config/profile.js';
import { AuthError, UsageError } from '../../src/lib/errors.js';

const config: ConfigData = {
  current: 'dev',
  profiles: {
    dev: { env: 'local', baseUrl: 'http://127.0.0.1:4010/api/v1/partner', apiKey: 'sk_test_dev_key_1234' },
    prod: { env: 'production', baseUrl: 'https://prod.example.test/api/v1/partner', apiKey: 'sk_live_prod_9876', webhookSecret: 'whsec_prod' },
  },
};

describe('settings precedence: flag > env > profile', () => {
  it('uses the current profile by default', () => {
    const s = resolveSettings({ flags: {}, env: {} }, config);
    expect(s).toMatchObject({ profileName: 'dev', env: 'local', apiKey: 'sk_test_dev_key_1234' });
  });

  it('env beats the profile and the flag beats env', () => {
    const env = { OFFRAMP_API_KEY: 'sk_env', OFFRAMP_BASE_URL: 'http://127.0.0.1:9/api/v1/partner', OFFRAMP_PROFILE: 'prod' };
    expect(resolveSettings({ flags: {}, env }, config)).toMatchObject({ apiKey: 'sk_env', baseUrl: env.OFFRAMP_BASE_URL, env: 'production' });
    expect(resolveSettings({ flags: { apiKey: 'sk_flag', profile: 'dev' }, env }, config)).toMatchObject({ apiKey: 'sk_flag', env: 'local' });
  });

  it('does not read the config file when flags and env give key and base URL', () => {
    expect(needsConfig({ flags: { apiKey: 'k', baseUrl: 'http://x' }, env: {} })).toBe(false);
    expect(needsConfig({ flags: {}, env: { OFFRAMP_API_KEY: 'k', OFFRAMP_BASE_URL: 'http://x' } })).toBe(false);
    expect(needsConfig({ flags: { apiKey: 'k' }, env: {} })).toBe(true);
    expect(needsConfig({ flags: { apiKey: 'k', baseUrl: 'http://x', profile: 'p' }, env: {} })).toBe(true);
  });

  it('names what is missing', () => {
    expect(() => resolveSettings({ flags: {}, env: {} }, { profiles: {} })).toThrow(UsageError);
    expect(() => resolveSettings({ flags: { baseUrl: 'http://127.0.0.1:1' }, env: {} }, { profiles: {} })).toThrow(AuthError);
    expect(() => resolveSettings({ flags: { profile: 'nope' }, env: {} }, config)).toThrow(/no profile named "nope"/);
    expect(() => resolveSettings({ flags: { baseUrl: 'ftp://x', apiKey: 'k' }, env: {} }, undefined)).toThrow(/http/);
  });
});

describe('masking', () => {
  it('shows the prefix and last four only', () => {
    expect(maskSecret('sk_live_abcdef123456')).toBe('sk_…3456');
    expect(maskSecret('whsec_1234567890')).toBe('whsec_…7890');
    expect(maskSecret('short')).not.toContain('short');
    expect(maskSecret(undefined)).toBe('—');
  });
});
