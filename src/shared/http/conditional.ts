/**
 * Conditional GET for stored images. Screenshots and their thumbnails never change once stored, so a
 * browser may keep them for a year (privately: they are one account's) and revalidate by ETag.
 */
export const IMMUTABLE_PRIVATE = 'private, max-age=31536000, immutable';

/** If-None-Match uses the weak comparison (RFC 9110 §13.1.2): `W/"x"` matches `"x"`; `*` matches any. */
export function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}
