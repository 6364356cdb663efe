/**
 * A patch the server cannot apply. `code` is the HTTP status Kubernetes answers with:
 * 400 (`BadRequest`) when the patch document itself is malformed (not JSON of the right shape,
 * bad directive, missing merge key), 413 (`RequestEntityTooLarge`) for a JSON patch of too
 * many operations, 422 (`Invalid`) when a well-formed patch does not fit the object (JSON
 * patch path missing, `test` failed, list of lists).
 */
export class PatchError extends Error {
  override readonly name = 'PatchError';

  constructor(
    readonly code: 400 | 413 | 422,
    message: string,
  ) {
    super(message);
  }

  get reason(): 'BadRequest' | 'RequestEntityTooLarge' | 'Invalid' {
    return this.code === 400 ? 'BadRequest' : this.code === 413 ? 'RequestEntityTooLarge' : 'Invalid';
  }

  static badRequest(message: string): PatchError {
    return new PatchError(400, message);
  }

  static tooLarge(message: string): PatchError {
    return new PatchError(413, message);
  }

  static unprocessable(message: string): PatchError {
    return new PatchError(422, message);
  }
}
