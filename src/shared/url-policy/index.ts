// Type-only re-exports use `export type` because the test transform runs with
// isolatedModules, where re-exporting a type as a value is an error.
export { classifyAddress } from './address-classifier';
export { UrlPolicy, UrlPolicyReasons, normaliseAllowlistEntry } from './url-policy';
export type { HostResolver, UrlPolicyOptions, UrlVerdict } from './url-policy';
