// `--encryption-provider-config FILE`, shared by `capstan apiserver` and `capstan up`: the file
// is read and validated before anything starts, so a bad file stops the command with the field
// that is wrong.
import { EncryptionConfigError, loadEncryptionConfiguration, type EncryptionConfiguration } from '../apiserver/encryption/index.js';

export function encryptionFlag(command: string, path: string | undefined): EncryptionConfiguration | undefined {
  if (path === undefined) return undefined;
  try {
    return loadEncryptionConfiguration(path);
  } catch (e) {
    if (e instanceof EncryptionConfigError) throw new Error(`${command}: --encryption-provider-config: ${e.message}`);
    throw e;
  }
}
