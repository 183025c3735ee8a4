import { describe, expect, it } from 'vitest';
import { maskSecret, needsConfig, resolveSettings, type ConfigData, checkBaseUrl } from '../../src/lib/config/profile.js';
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
    expect(() => resolveSettings({ flags: { baseUrl: 'http://127.0.0.1:1/api/v1/partner' }, env: {} }, { profiles: {} })).toThrow(AuthError);
    expect(() => resolveSettings({ flags: { profile: 'nope' }, env: {} }, config)).toThrow(/no profile named "nope"/);
    expect(() => resolveSettings({ flags: { baseUrl: 'ftp://x', apiKey: 'k' }, env: {} }, undefined)).toThrow('base URL: must be an http:// or https:// URL, not ftp://');
    expect(() => checkBaseUrl('api.example.com', {})).toThrow('base URL: "api.example.com" is not a URL');
  });
});

describe('base URLs, wherever they come from', () => {
  it('need https off loopback and the /api/v1/partner path, suggesting the URL meant', () => {
    expect(checkBaseUrl('https://api.example.com/api/v1/partner/', {}).host).toBe('api.example.com');
    expect(checkBaseUrl('http://127.0.0.1:4010/api/v1/partner', {}).port).toBe('4010');
    expect(checkBaseUrl('http://localhost:4010/api/v1/partner', {}).port).toBe('4010');
    const refusal = (url: string) => {
      try {
        checkBaseUrl(url, {});
      } catch (err) {
        return `${(err as UsageError).message} | ${(err as UsageError).hint}`;
      }
      return 'accepted';
    };
    expect(refusal('http://api.example.com/api/v1/partner')).toBe(
      'base URL http://api.example.com/api/v1/partner is plain http: the API key would cross the network in clear | use https://api.example.com/api/v1/partner (http is accepted only for loopback addresses, such as the emulator; for a CI service alias on the job\'s own network, name it in OFFRAMP_ALLOW_HTTP_HOSTS)',
    );
    expect(refusal('https://api.example.com')).toBe('base URL https://api.example.com/ does not end in /api/v1/partner | did you mean https://api.example.com/api/v1/partner?');
    expect(refusal('https://api.example.com/api/v1/partner/transactions')).toBe(
      'base URL https://api.example.com/api/v1/partner/transactions does not end in /api/v1/partner | did you mean https://api.example.com/api/v1/partner?',
    );
    expect(refusal('https://ops:s3cret@api.example.com/v2')).not.toContain('s3cret');
    // Every source goes through the same check.
    expect(() => resolveSettings({ flags: { apiKey: 'k' }, env: { OFFRAMP_BASE_URL: 'http://api.example.com/api/v1/partner' } }, undefined)).toThrow(/plain http/);
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
