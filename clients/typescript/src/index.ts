export { createClient, type ClientOptions, type ScreenshotClient } from './client';
export { ApiError } from './errors';
export { render, type RenderParams, type Rendered } from './render';
export { signRenderUrl, type QueryValue, type SignedRenderParams, type SignRenderUrlOptions } from './signing';
export { waitForExecution, waitForJob, WaitTimeoutError, type Execution, type Job, type WaitOptions } from './wait';
export type * from './schema';
