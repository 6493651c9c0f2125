import type { SecretStore } from '../config/secrets';
import { sealString, unsealString } from '../config/sealed-string';

/**
 * Seals and unseals the secrets inside channel configs (AppSecrets, webhook tokens) with the key
 * `push-secrets` of one server's data dir (server/config/sealed-string.ts). One box per push
 * service: two servers in one process each use their own data dir's key.
 */
export class SecretBox {
  constructor(
    private readonly secrets: SecretStore,
    private readonly keyName = 'push-secrets',
  ) {}

  seal(plain: string): string {
    return sealString(this.secrets, this.keyName, plain);
  }

  unseal(value: string): string {
    return unsealString(this.secrets, this.keyName, value);
  }
}
