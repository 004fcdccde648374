/** Which page of a list a caller asked for (1-based), in the terms repositories take; the HTTP query lives in shared/http/pagination.ts. */
export interface PageRequest {
  page: number;
  perPage: number;
}
