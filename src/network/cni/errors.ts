// CNI error results (spec 1.0.0 "Error" section): a code, a message and details, printed on
// stdout with a non-zero exit. Codes 1–99 are the spec's; above 100 are capstan's.

export const CNI_ERROR = {
  incompatibleVersion: 1,
  unsupportedField: 2,
  unknownContainer: 3,
  invalidEnvironment: 4,
  io: 5,
  decode: 6,
  invalidConfig: 7,
  tryAgainLater: 11,
  /** The node's pod CIDR has no free address. */
  addressesExhausted: 100,
  /** A kernel or other failure without a more specific code. */
  internal: 999,
} as const;

export class CNIError extends Error {
  constructor(readonly code: number, msg: string, readonly details = '') {
    super(msg);
    this.name = 'CNIError';
  }

  toJSON(cniVersion: string): Record<string, unknown> {
    return { cniVersion, code: this.code, msg: this.message, ...(this.details ? { details: this.details } : {}) };
  }
}
