export { createClient, apiBaseUrl, SDK_VERSION } from "./client.js";
export type { ClientOptions, Download, PostureClient, ResponseData } from "./client.js";
export { ApiError, WebhookVerificationError } from "./errors.js";
export type { ErrorBody, ErrorCode, WebhookVerificationReason } from "./errors.js";
export type { PageItem, PaginatedPath } from "./paginate.js";
export type { RetryWait } from "./retry.js";
export { verifyWebhook } from "./webhooks.js";
export type { VerifyWebhookOptions, WebhookEvent, WebhookHeaders } from "./webhooks.js";
export type { components, operations, paths, webhooks } from "./schema.js";
