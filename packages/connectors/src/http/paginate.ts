import { type TJsonClient, type TQuery } from "./client";

/** Google list APIs: `nextPageToken` in the body, sent back as `pageToken`. */
export async function* pagesByToken<TPage extends { nextPageToken?: string }>(
  client: TJsonClient,
  path: string,
  query: TQuery,
): AsyncGenerator<TPage> {
  let pageToken: string | undefined;
  do {
    const page = await client.get<TPage>(path, { ...query, pageToken });
    yield page;
    pageToken = page.nextPageToken || undefined;
  } while (pageToken);
}

/** Microsoft Graph collections: `value` items and an absolute `@odata.nextLink` until the last page. */
export async function* graphItems<T>(
  client: TJsonClient,
  path: string,
  query: TQuery = {},
): AsyncGenerator<T> {
  let next: { url: string; query?: TQuery } | null = { url: path, query };
  while (next) {
    const page: { value?: T[]; "@odata.nextLink"?: string } = await client.get(next.url, next.query);
    yield* page.value ?? [];
    const link = page["@odata.nextLink"];
    // The next link already carries every query option; adding ours again would duplicate them.
    next = link ? { url: link } : null;
  }
}
