/**
 * gatehouse-kyc-client: the Gatehouse tenant API for TypeScript and JavaScript, with retries
 * that never duplicate a credential, list sweeps, and webhook verification. Only `fetch` and
 * Web Crypto: no runtime dependency.
 */
export { Gatehouse, Webhooks, Sandbox, ConsoleSessions } from "./client.js";
export type { IterateApplicationsParams, SweepParams } from "./client.js";
export type { ClientOptions, RequestOptions, WriteOptions } from "./core.js";
export { USER_AGENT } from "./core.js";
export * from "./errors.js";
export * from "./models.js";
export { decide, backoffDelay, DEFAULT_BACKOFF } from "./retry.js";
export type { Safety, Decision as RetryDecision, Backoff, Failure } from "./retry.js";
export type { SweepResult } from "./sweep.js";
export { VERSION } from "./version.js";
export * from "./webhooks/events.js";
export * from "./webhooks/verify.js";
export * from "./webhooks/dedupe.js";
export * from "./webhooks/receiver.js";
export type { components, operations, paths } from "./generated/openapi.js";
