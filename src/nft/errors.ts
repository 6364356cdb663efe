import { constants } from 'node:os';

/** A failed nftables transaction or listing; nothing of a failed transaction was applied. */
export class NftError extends Error {
  override readonly name = 'NftError';
  constructor(
    message: string,
    readonly errno: number,
    readonly code: string,
    /** Index of the failing operation in the transaction, when known. */
    readonly index?: number,
  ) {
    super(message);
  }
}

export const errnoOf = (code: string): number => (constants.errno as Record<string, number>)[code] ?? 0;

const MESSAGES: [RegExp, string][] = [
  [/File exists/i, 'EEXIST'], [/No such file or directory|does not exist/i, 'ENOENT'],
  [/Device or resource busy/i, 'EBUSY'], [/Operation not supported/i, 'EOPNOTSUPP'],
  [/Operation not permitted/i, 'EPERM'], [/Too many links/i, 'EMLINK'], [/Numerical result out of range/i, 'ERANGE'],
  [/Invalid argument/i, 'EINVAL'],
];

/** nft prints strerror() text; map it back to an errno code (EINVAL for syntax errors). */
export function codeFromNftMessage(text: string): string {
  for (const [re, code] of MESSAGES) if (re.test(text)) return code;
  return 'EINVAL';
}
