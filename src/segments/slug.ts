/** Segment ids are slugs: readable in URLs and webhook payloads, safe in any path segment. */
const SLUG = /^[a-z0-9_-]{1,64}$/;
export const MAX_SLUG_LENGTH = 64;
const FALLBACK = 'segment';

/** "Price-sensitive Users (EU)" → "price-sensitive-users-eu"; a name with no usable characters → "segment". */
export function slugify(name: string): string {
  const slug = name
    // Strip accents so "Café" becomes "cafe" rather than "caf".
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '-')
    .replace(/-+/g, '-')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/^[-_]+|[-_]+$/g, '');
  return slug.length > 0 ? slug : FALLBACK;
}

export function isValidSlug(s: string): boolean {
  return typeof s === 'string' && SLUG.test(s);
}
