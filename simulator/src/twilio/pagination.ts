/** A Twilio list page: the items under `key` plus Twilio's paging fields. */
export function twilioPage<T>(key: string, listUri: string, items: T[], query: URLSearchParams, filters: Record<string, string> = {}): Record<string, unknown> {
  const pageSize = Math.min(1000, Math.max(1, Number.parseInt(query.get('PageSize') ?? '50', 10) || 50));
  const page = Math.max(0, Number.parseInt(query.get('Page') ?? '0', 10) || 0);
  const start = page * pageSize;
  const slice = items.slice(start, start + pageSize);
  const filterQuery = Object.entries(filters)
    .map(([k, v]) => `&${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('');
  const uriFor = (p: number) => `${listUri}?PageSize=${pageSize}&Page=${p}${filterQuery}`;
  return {
    [key]: slice,
    end: slice.length === 0 ? start : start + slice.length - 1,
    first_page_uri: uriFor(0),
    next_page_uri: start + pageSize < items.length ? uriFor(page + 1) : null,
    page,
    page_size: pageSize,
    previous_page_uri: page > 0 ? uriFor(page - 1) : null,
    start,
    uri: uriFor(page),
  };
}
