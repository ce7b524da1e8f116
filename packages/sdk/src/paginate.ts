import type { ResponseData } from "./client.js";
import type { paths } from "./schema.js";
import type { PathsWithMethod } from "./types.js";

type GetPath = PathsWithMethod<paths, "get">;
type Data<P extends GetPath> = ResponseData<P, "get">;

/** The API's three list styles, told apart by the fields of a page. */
type OffsetPage = { nextOffset: number | null; offset: number; limit: number };
type CursorPage = { nextCursor: string | null };
type NumberedPage = { page: number; totalPages: number };

/** The lists `paginate` walks: offset-paged (`nextOffset`), cursor-paged (`nextCursor`), page-numbered (`totalPages`). */
export type PaginatedPath = {
  [P in GetPath]: Data<P> extends OffsetPage | CursorPage | NumberedPage ? P : never;
}[GetPath];

type ArrayKeys<D> = {
  [K in keyof D]-?: NonNullable<D[K]> extends ReadonlyArray<unknown> ? K : never;
}[keyof D];

/** One element of the page's list field (`findings`, `rows`, `items`, `entries`, …). */
export type PageItem<P extends PaginatedPath> =
  NonNullable<Data<P>[ArrayKeys<Data<P>>]> extends ReadonlyArray<infer T> ? T : never;

type Init = { params?: { query?: Record<string, unknown>; path?: Record<string, unknown> } } & Record<
  string,
  unknown
>;

function listOf(page: Record<string, unknown>, path: string): unknown[] {
  const arrays = Object.values(page).filter((v): v is unknown[] => Array.isArray(v));
  if (arrays.length !== 1 || !arrays[0])
    throw new Error(`paginate: ${path} has ${arrays.length} list fields; expected one`);
  return arrays[0];
}

/** The query of the page after `page`, or null when `page` is the last. */
export function nextQuery(
  page: Record<string, unknown>,
  query: Record<string, unknown>,
): Record<string, unknown> | null {
  if ("nextOffset" in page) {
    return typeof page.nextOffset === "number" ? { ...query, offset: page.nextOffset } : null;
  }
  if ("nextCursor" in page) {
    return typeof page.nextCursor === "string" ? { ...query, before: page.nextCursor } : null;
  }
  if ("totalPages" in page && typeof page.page === "number" && typeof page.totalPages === "number") {
    return page.page < page.totalPages ? { ...query, page: page.page + 1 } : null;
  }
  throw new Error("paginate: the response is not a page (no nextOffset, nextCursor or totalPages)");
}

/**
 * Yields every item of every page. The caller's query (filters, `limit`) is kept; only the
 * position moves: `offset` from `nextOffset`, `before` from `nextCursor`, `page` up to `totalPages`.
 * Pages are fetched one at a time, as items are consumed; `break` stops fetching.
 */
export async function* paginate(
  get: (path: string, init: Init) => Promise<unknown>,
  path: string,
  init: Init = {},
): AsyncGenerator<never, void, undefined> {
  let query: Record<string, unknown> | null = { ...init.params?.query };
  while (query !== null) {
    const page = (await get(path, { ...init, params: { ...init.params, query } })) as Record<string, unknown>;
    const items = listOf(page, path);
    yield* items as never[];
    query = items.length === 0 ? null : nextQuery(page, query);
  }
}
