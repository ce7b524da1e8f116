/**
 * The gateway's limits on a tRPC request, which the client's batching stays within.
 *
 * - `apps/gateway/src/middleware/access.ts` refuses a batch of more than `MAX_TRPC_BATCH` (10)
 *   calls with 400 `invalid_input`, before it counts any of them against the rate limit.
 * - Node's HTTP parser refuses a request line and headers over 16 kB together (431, before any of
 *   the service's code runs), and a batched query carries its inputs in the URL. Half of that is
 *   left for the headers (cookies, user agent), which also keeps the request line inside the 8 kB
 *   buffer that common reverse proxies (nginx's default `large_client_header_buffers`) give it.
 * - Bodies are at most 100 kB; a mutation carries its input in the body, so mutations are not
 *   batched (see create-client.ts).
 */
export const MAX_BATCH_ITEMS = 10;
export const MAX_URL_LENGTH = 8_000;
