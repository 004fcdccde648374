/** An answer that is not a success, with the service's error body (`{success: false, error, code}`) when it sent one. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  static from(response: Response, body: unknown): ApiError {
    const error = body as { error?: unknown; code?: unknown } | undefined;
    const code = typeof error?.code === 'string' ? error.code : undefined;
    const message = typeof error?.error === 'string' ? error.error : `HTTP ${response.status}`;
    return new ApiError(response.status, code, message, body);
  }
}
