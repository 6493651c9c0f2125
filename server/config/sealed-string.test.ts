import { describe, expect, it } from 'vitest';
import { isSealed, sealString, unsealString } from './sealed-string';
import { SecretStore } from './secrets';
import { tempDir } from '../test-support/temp-dirs';

describe('sealed strings', () => {
  it('round-trips a secret, and reads plain values written before sealing as they are', () => {
    const secrets = new SecretStore(tempDir('sealed'));
    const sealed = sealString(secrets, 'push-secrets', 'webhook-token');
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).not.toContain('webhook-token');
    expect(unsealString(secrets, 'push-secrets', sealed)).toBe('webhook-token');
    expect(unsealString(secrets, 'push-secrets', 'plain-old-token')).toBe('plain-old-token');
  });

  it('refuses a sealed value cut short with an error that says it is damaged', () => {
    const secrets = new SecretStore(tempDir('sealed'));
    const sealed = sealString(secrets, 'push-secrets', 'webhook-token');
    const [iv = '', tag = ''] = sealed.slice('enc:v1:'.length).split(':');
    for (const cut of ['enc:v1:', `enc:v1:${iv}`, `enc:v1:${iv}:${tag}`]) {
      expect(() => unsealString(secrets, 'push-secrets', cut), cut).toThrow(/sealed value is damaged/);
    }
  });
});
