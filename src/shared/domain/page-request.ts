/** Which page of a list a caller asked for (1-based), in the terms repositories take; the HTTP query lives in shared/http/pagination.ts. */
export interface PageRequest {
  page: number;
  perPage: number;
  /**
   * Where the page starts, read from a link's `cursor` (keyset): right after (`after`) or right before (`before`)
   * the row whose order keys are given, or the list's end (`end`: the last page, read backwards). Absent: the
   * page is found by its number (OFFSET), as `?page=N` always was.
   */
  from?: PagePosition;
}

export type PagePosition = { after: readonly unknown[] } | { before: readonly unknown[] } | { end: true };

/** The order keys of a page's first and last rows: where the pages before and after it start. */
export interface PageEdges {
  first: unknown[];
  last: unknown[];
}

/** One page of a list: its items, how many there are in all, and (when a repository knows them) its edges. */
export interface Page<T> {
  items: T[];
  total: number;
  edges?: PageEdges;
}
