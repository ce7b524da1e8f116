/**
 * The few type helpers the client needs, written out here (openapi-fetch uses them from
 * openapi-typescript-helpers without re-exporting them).
 */
export type HttpMethod = "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";
export type MediaType = `${string}/${string}`;

/** The paths that have an operation for `Method`. */
export type PathsWithMethod<Paths, Method extends HttpMethod> = {
  [P in keyof Paths]: Paths[P] extends { [K in Method]: unknown } ? P : never;
}[keyof Paths];

type RequiredKeysOf<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];

/** The call's second argument: required exactly when the operation has required parameters or body. */
export type InitParam<Init> =
  RequiredKeysOf<Init> extends never
    ? [(Init & { [key: string]: unknown })?]
    : [Init & { [key: string]: unknown }];
